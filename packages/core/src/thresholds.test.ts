import { describe, expect, it } from "vitest";
import { contradictions, withDerivedMetrics } from "./derived";
import {
  approximateInterval,
  evaluateThresholds,
  judgeThreshold,
  thresholdsOutcome,
  thresholdsPassGate,
  verdictStatus,
} from "./thresholds";

const t = (metric: string, op: "<" | "<=" | ">" | ">=" | "==", value: number) => ({
  threshold: { metric, op, value },
  source: "project" as const,
});

describe("three-state threshold verdicts", () => {
  it("says pass, fail or not measured, and only pass counts as passed", () => {
    const verdicts = evaluateThresholds({ queue_depth_peak: 20, failed: 3 }, [
      t("queue_depth_peak", "<", 1000),
      t("failed", "==", 0),
      t("latency_p99", "<", 100),
    ]);
    expect(verdicts.map((v) => [v.status, v.passed, v.actual])).toEqual([
      ["pass", true, 20],
      ["fail", false, 3],
      ["not_measured", false, null],
    ]);
    expect(thresholdsOutcome(verdicts)).toBe("fail");
    expect(thresholdsOutcome(verdicts.filter((v) => v.metric !== "failed"))).toBe("not_measured");
    expect(thresholdsOutcome([])).toBe("none");
  });

  it("a gate fails on not measured unless allowed, and always on a fail", () => {
    const notMeasured = evaluateThresholds({}, [t("queue_depth_peak", "<", 1000)]);
    expect(thresholdsPassGate(notMeasured)).toBe(false);
    expect(thresholdsPassGate(notMeasured, { allowNotMeasured: true })).toBe(true);
    const failed = evaluateThresholds({ queue_depth_peak: 5000 }, [t("queue_depth_peak", "<", 1000)]);
    expect(thresholdsPassGate(failed, { allowNotMeasured: true })).toBe(false);
    expect(thresholdsPassGate([])).toBe(true);
  });

  it("reads verdicts stored before the third state: a missing value was never a fail", () => {
    expect(verdictStatus({ passed: false, actual: null })).toBe("not_measured");
    expect(verdictStatus({ passed: false, actual: 4 })).toBe("fail");
    expect(verdictStatus({ passed: true, actual: 4 })).toBe("pass");
    expect(verdictStatus({ passed: false, actual: 4, status: "not_measured" })).toBe("not_measured");
  });

  it("judges approximate values on their whole interval and never by an exact comparison", () => {
    expect(approximateInterval(20)).toEqual([18, 22]);
    expect(approximateInterval(40, [35, 40])).toEqual([35, 40]);
    const lt = { metric: "queue_depth_peak", op: "<" as const, value: 1000 };
    expect(judgeThreshold(lt, 20, [18, 22]).status).toBe("pass");
    expect(judgeThreshold(lt, 10_000, [9000, 11_000]).status).toBe("fail");
    expect(judgeThreshold(lt, 1000, [900, 1100])).toEqual({
      status: "not_measured",
      note: "approximate value: its range straddles the threshold",
    });
    expect(judgeThreshold({ metric: "failed", op: "==", value: 0 }, 0, [0, 0]).status).toBe("not_measured");
  });
});

describe("delivery-aware chat verdicts", () => {
  const noLoss = [t("message_loss", "==", 0)];
  const chat = (messages: number, failed: number) =>
    withDerivedMetrics({ expected_deliveries: 502_000, messages, failed }, {});

  it("counts lost deliveries and fails 'no message loss' when any were lost, whatever failed says", () => {
    // The chat log's runs 1 and 3 print "Failed messages 0" beside 475,866 and 463,427 delivered.
    const run1 = chat(475_866, 0);
    expect(run1.lost_deliveries).toBe(26_134);
    expect(run1.message_loss).toBe(26_134);
    expect(evaluateThresholds(run1, noLoss)[0]!.status).toBe("fail");
    expect(chat(463_427, 0).lost_deliveries).toBe(38_573);
    expect(evaluateThresholds(chat(502_000, 0), noLoss)[0]!.status).toBe("pass");
    expect(evaluateThresholds(chat(502_000, 7), noLoss)[0]!.status).toBe("fail");
  });

  it("flags published figures that contradict each other", () => {
    expect(contradictions(chat(475_866, 0))).toEqual([
      "Failed messages is 0, yet 26,134 of 502,000 expected deliveries never arrived (475,866 delivered): those messages were lost, not delivered.",
    ]);
    expect(contradictions(chat(502_000, 0))).toEqual([]);
  });

  it("keeps an engine's own lost count when it has no expected count to derive from", () => {
    expect(withDerivedMetrics({ lost_deliveries: 3, failed: 1 }, {})).toMatchObject({ message_loss: 4 });
  });
});
