// The operator-settings model: defaults, the strict parser a config file goes through, the lenient
// reader of the editor's settings, and the conversion to the milliseconds the core computes with.
import assert from 'node:assert/strict';
import {
  DEFAULT_MONITOR_SETTINGS,
  monitorSettings,
  OPERATOR_SETTING_KEYS,
  operatorDefaults,
  OperatorSettingsError,
  parseOperatorSettings,
  readOperatorSettings,
} from '../../../../src/core/settings/operator-settings';

function problemsOf(raw: unknown, options?: { ignore?: readonly string[] }): readonly string[] {
  try {
    parseOperatorSettings(raw, options);
  } catch (err) {
    assert.ok(err instanceof OperatorSettingsError);
    return err.problems;
  }
  assert.fail('expected an OperatorSettingsError');
}

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

  describe('parseOperatorSettings (a config file)', () => {
    it('an empty object is every default', () => {
      assert.deepEqual(parseOperatorSettings({}), operatorDefaults());
    });

    it('reads nested groups and dotted names', () => {
      const s = parseOperatorSettings({
        sampleSpacingSeconds: 30,
        automatic: { wakeIdle: true, abortHung: false },
        'quotaWall.retryWaitMinutes': 5,
        recovery: { providers: ['anthropic', 'openai'] },
      });
      assert.equal(s.sampleSpacingSeconds, 30);
      assert.equal(s['automatic.wakeIdle'], true);
      assert.equal(s['automatic.abortHung'], false);
      assert.equal(s['quotaWall.retryWaitMinutes'], 5);
      assert.equal(s['quotaWall.markMaxAgeMinutes'], 360);
      assert.deepEqual(s['recovery.providers'], ['anthropic', 'openai']);
    });

    it('an unknown key is an error naming it', () => {
      assert.deepEqual(problemsOf({ sampleSpacing: 30 }), ['sampleSpacing: unknown setting']);
      assert.deepEqual(problemsOf({ automatic: { wakeAll: true } }), ['automatic.wakeAll: unknown setting']);
    });

    it('a wrong type or value is an error naming the key and what was expected', () => {
      assert.deepEqual(problemsOf({ sampleSpacingSeconds: '45' }), [
        'sampleSpacingSeconds: expected an integer, got string "45"',
      ]);
      assert.deepEqual(problemsOf({ sampleSpacingSeconds: 20 }), [
        'sampleSpacingSeconds: expected a number from 30 to 60, got number 20',
      ]);
      assert.deepEqual(problemsOf({ sampleSpacingSeconds: 45.5 }), [
        'sampleSpacingSeconds: expected an integer, got number 45.5',
      ]);
      assert.deepEqual(problemsOf({ toolCeilingMinutes: 0 }), [
        'toolCeilingMinutes: expected a number >= 1, got number 0',
      ]);
      assert.deepEqual(problemsOf({ automatic: { abortHung: 'yes' } }), [
        'automatic.abortHung: expected true or false, got string "yes"',
      ]);
      assert.deepEqual(problemsOf({ automatic: true }), ['automatic: expected an object of settings']);
      assert.deepEqual(problemsOf({ recovery: { providers: ['ok', 'bad id'] } }), [
        'recovery.providers[1]: "bad id" does not match ^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$',
      ]);
      assert.deepEqual(problemsOf({ recovery: { providers: ['a', 'a'] } }), [
        'recovery.providers: expected a list without repeated items, got a list',
      ]);
      assert.deepEqual(problemsOf({ recovery: { providers: 'anthropic' } }), [
        'recovery.providers: expected a list of strings, got string "anthropic"',
      ]);
    });

    it('reports every problem at once, and a setting given twice', () => {
      const problems = problemsOf({
        nope: 1,
        useEventStream: 1,
        automatic: { wakeIdle: true },
        'automatic.wakeIdle': true,
      });
      assert.deepEqual(problems, [
        'nope: unknown setting',
        'automatic.wakeIdle: set twice',
        'useEventStream: expected true or false, got number 1',
      ]);
    });

    it('leaves the keys the caller reads itself, and refuses what is not an object', () => {
      assert.deepEqual(
        parseOperatorSettings({ backends: [], metrics: {} }, { ignore: ['backends', 'metrics'] }),
        operatorDefaults(),
      );
      assert.deepEqual(problemsOf({ backends: [] }), ['backends: unknown setting']);
      assert.deepEqual(problemsOf([1]), ['the settings must be an object of names and values']);
      assert.deepEqual(problemsOf(null), ['the settings must be an object of names and values']);
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
