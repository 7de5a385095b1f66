// The operator-settings model: defaults, the one reader every host's source goes through (lenient
// for the editor's settings, checked for a validated config file or flags), and the conversion to
// the milliseconds the core computes with. A config file's strictness: test/unit/core/watch/.
import assert from 'node:assert/strict';
import {
  DEFAULT_MONITOR_SETTINGS,
  monitorSettings,
  OPERATOR_SETTING_KEYS,
  operatorDefaults,
  nestedSource,
  readOperatorSettings,
} from '../../../../src/core/settings/operator-settings';

describe('operator settings model', () => {
  it('lists every setting once, with its default', () => {
    assert.deepEqual(OPERATOR_SETTING_KEYS, [
      'sampleSpacingSeconds',
      'resetWithinReachMinutes',
      'recovery.providers',
      'quotaWall.retryWaitMinutes',
      'quotaWall.markMaxAgeMinutes',
      'toolCeilingMinutes',
      'automatic.abortHung',
      'automatic.wakeIdle',
      'automatic.recoverQuotaWalls',
      'automatic.abortOverBudget',
      'automatic.maxAgeHours',
      'automatic.maxConsecutiveWakes',
      'automatic.onlyTicketed',
      'budget.sessionUsd',
      'prompt.maxKiB',
      'showCost',
      'useEventStream',
      'notifications',
    ]);
    assert.deepEqual(operatorDefaults(), {
      sampleSpacingSeconds: 45,
      resetWithinReachMinutes: 120,
      'recovery.providers': [],
      'quotaWall.retryWaitMinutes': 2,
      'quotaWall.markMaxAgeMinutes': 360,
      toolCeilingMinutes: 30,
      'automatic.abortHung': false,
      'automatic.wakeIdle': false,
      'automatic.recoverQuotaWalls': false,
      'automatic.abortOverBudget': false,
      'automatic.maxAgeHours': 24,
      'automatic.maxConsecutiveWakes': 3,
      'automatic.onlyTicketed': false,
      'budget.sessionUsd': 0,
      'prompt.maxKiB': 256,
      showCost: true,
      useEventStream: true,
      notifications: true,
    });
  });

  it('converts to the milliseconds the core computes with', () => {
    assert.deepEqual(DEFAULT_MONITOR_SETTINGS, {
      spacingMs: 45_000,
      resetWithinReachMs: 120 * 60_000,
      retryWaitMs: 2 * 60_000,
      markMaxAgeMs: 360 * 60_000,
      toolCeilingMs: 30 * 60_000,
      providers: [],
      useEventStream: true,
      budgetUsd: 0,
      maxPromptBytes: 256 * 1024,
    });
    const s = { ...operatorDefaults(), 'quotaWall.retryWaitMinutes': 0.5, sampleSpacingSeconds: 30 };
    assert.equal(monitorSettings(s).retryWaitMs, 30_000);
    assert.equal(monitorSettings(s).spacingMs, 30_000);
  });

  describe('readOperatorSettings, checked (a config file or flags its host validated)', () => {
    it('nothing set is every default', () => {
      assert.deepEqual(readOperatorSettings(nestedSource({}), 'checked'), operatorDefaults());
    });

    it('reads nested groups; a value is taken as given (its host checked it with its own bounds)', () => {
      const providers = ['anthropic', 'openai'];
      const s = readOperatorSettings(
        nestedSource({
          sampleSpacingSeconds: 2,
          automatic: { wakeIdle: true, abortHung: false },
          quotaWall: { retryWaitMinutes: 5 },
          recovery: { providers },
          backends: [],
        }),
        'checked',
      );
      assert.equal(s.sampleSpacingSeconds, 2, 'watch --allow-short-spacing: under the model minimum');
      assert.equal(s['automatic.wakeIdle'], true);
      assert.equal(s['automatic.abortHung'], false);
      assert.equal(s['quotaWall.retryWaitMinutes'], 5);
      assert.equal(s['quotaWall.markMaxAgeMinutes'], 360);
      assert.deepEqual(s['recovery.providers'], providers);
      assert.notEqual(s['recovery.providers'], providers, 'a list is copied');
    });

    it('a group that is not an object gives no value for its settings', () => {
      assert.equal(nestedSource({ automatic: true })('automatic.wakeIdle'), undefined);
      assert.equal(nestedSource({ automatic: [1] })('automatic.wakeIdle'), undefined);
      assert.equal(nestedSource(null)('showCost'), undefined);
    });
  });

  describe('readOperatorSettings (the editor, whose values VS Code does not enforce)', () => {
    it('unset settings are the defaults', () => {
      assert.deepEqual(
        readOperatorSettings(() => undefined),
        operatorDefaults(),
      );
    });

    it('a wrong value reads as the default, a number out of range as the nearest bound', () => {
      const raw: Record<string, unknown> = {
        sampleSpacingSeconds: 90,
        resetWithinReachMinutes: 'soon',
        'quotaWall.retryWaitMinutes': Number.NaN,
        toolCeilingMinutes: 0,
        'recovery.providers': ['anthropic', 'bad id', 3, 'anthropic'],
        'automatic.wakeIdle': 'true',
        notifications: false,
      };
      const s = readOperatorSettings((key) => raw[key]);
      assert.equal(s.sampleSpacingSeconds, 60);
      assert.equal(s.resetWithinReachMinutes, 120);
      assert.equal(s['quotaWall.retryWaitMinutes'], 2);
      assert.equal(s.toolCeilingMinutes, 1);
      assert.deepEqual(s['recovery.providers'], ['anthropic']);
      assert.equal(s['automatic.wakeIdle'], false);
      assert.equal(s.notifications, false);
      assert.equal(
        readOperatorSettings((k) => (k === 'sampleSpacingSeconds' ? 44.6 : undefined)).sampleSpacingSeconds,
        45,
      );
    });
  });
});
