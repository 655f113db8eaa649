"""The typed request and result between the tool and a toolset's compile worker (JSON over
files; no torch). One request holds every job of a run, so the worker imports torch and
executorch once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class WorkerJob:
    """Compile `model` for each of `targets` with `choices` (CompileChoices.given())."""

    model: str
    targets: tuple[str, ...]
    choices: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "targets": list(self.targets), "choices": self.choices}

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> WorkerJob:
        return cls(model=str(document["model"]), targets=tuple(document["targets"]),
                   choices=dict(document["choices"]))


@dataclass(frozen=True)
class WorkerRequest:
    """Every job, into the scratch at `scratch`, under the toolset named `toolset`."""

    jobs: tuple[WorkerJob, ...]
    scratch: str
    toolset: str

    def to_json(self) -> dict[str, Any]:
        return {"jobs": [job.to_json() for job in self.jobs], "scratch": self.scratch,
                "toolset": self.toolset}

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> WorkerRequest:
        return cls(jobs=tuple(WorkerJob.from_json(job) for job in document["jobs"]),
                   scratch=str(document["scratch"]), toolset=str(document["toolset"]))


@dataclass(frozen=True)
class WorkerOutcome:
    """One job's target: the product directory, or the one-line error (cause, next)."""

    job: int
    target: str
    product: str | None = None
    cause: str | None = None
    next_step: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"job": self.job, "target": self.target, "product": self.product,
                "cause": self.cause, "next_step": self.next_step}


@dataclass(frozen=True)
class WorkerResult:
    """Every job's outcomes in order, and the versions the worker's environment imported."""

    outcomes: tuple[WorkerOutcome, ...]
    versions: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {"outcomes": [outcome.to_json() for outcome in self.outcomes],
                "versions": self.versions}

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> WorkerResult:
        return cls(outcomes=tuple(WorkerOutcome(**entry) for entry in document["outcomes"]),
                   versions={str(k): str(v) for k, v in document["versions"].items()})

