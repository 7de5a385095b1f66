/** Paths of `prometheus` and `promtool`, installing Debian's prometheus package when missing (see ensure-prometheus.mjs). */
export function ensurePrometheus(log?: (message: string) => void): { prometheus: string; promtool: string };
/** The Debian packages the Prometheus tests need that are not installed (PROMETHEUS_PATH / PROMTOOL_PATH count). */
export function missingPrometheusPackages(): string[];
