/** Paths of `prometheus` and `promtool`, installing Debian's prometheus package when missing (see ensure-prometheus.mjs). */
export function ensurePrometheus(log?: (message: string) => void): { prometheus: string; promtool: string };
/** The Debian packages the Prometheus tests need that are not installed (PROMETHEUS_PATH / PROMTOOL_PATH count). */
export function missingPrometheusPackages(): string[];
/** Paths of Alertmanager and `amtool`, installing Debian's prometheus-alertmanager package when missing (see ensure-prometheus.mjs). */
export function ensureAlertmanager(log?: (message: string) => void): { alertmanager: string; amtool: string };
/** The Debian packages the Alertmanager tests need that are not installed (ALERTMANAGER_PATH / AMTOOL_PATH count). */
export function missingAlertmanagerPackages(): string[];
