"""A regress cell over a data set (`inputs`): its accuracy summary becomes baselined metrics
(accuracy.dataset.*, held to the accuracy tolerance: deterministic runs, exact numbers)."""

from __future__ import annotations

from orchestrator.regress.verdict.baseline import DEFAULT_TOLERANCES
from orchestrator.regress.verdict.metrics import extract_metrics
from orchestrator.results import Accuracy, Classification, Kind, RunResult, Status


def test_dataset_accuracy_is_a_metric_of_the_cell():
    result = RunResult(Status.PASS, "ok", Classification(Kind.SUCCESS, "completed", "none"))
    result.accuracy = Accuracy(dataset={
        "requested": 30, "completed": 30, "exact": 30, "top1_agreement": 0.9666,
        "top5_agreement": 1.0, "snr_db_mean": 19.2, "snr_db_min": 10.1,
        "accuracy": {"float": 0.96, "host_integer": 0.9333, "device": 0.9333}})
    metrics = extract_metrics(result)
    assert {name: value for name, value in metrics.items()
            if name.startswith("accuracy.dataset.")} == {
        "accuracy.dataset.completed": 30, "accuracy.dataset.top1_agreement": 0.9666,
        "accuracy.dataset.top5_agreement": 1.0, "accuracy.dataset.snr_db_mean": 19.2,
        "accuracy.dataset.snr_db_min": 10.1, "accuracy.dataset.float": 0.96,
        "accuracy.dataset.host_integer": 0.9333, "accuracy.dataset.device": 0.9333}
    assert DEFAULT_TOLERANCES["accuracy.*"] == {"rel": 0.0, "abs": 1e-6}
