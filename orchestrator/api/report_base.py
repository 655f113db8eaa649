"""The shared surface of the API's reports (orchestrator.api.reports): kept apart so a run,
which returns a RunReport only, does not create the other jobs' report classes."""

from __future__ import annotations

import json
from typing import Any

Number = int | float | str


class Report:
    """The shared surface of every job's report."""

    @property
    def passed(self) -> bool:
        raise NotImplementedError

    @property
    def diagnosis(self) -> str:
        """One line: the verdict, and on failure why and what to run next."""
        raise NotImplementedError

    def numbers(self) -> dict[str, Number]:
        """The headline numbers by dotted name (None values left out)."""
        raise NotImplementedError

    def to_dict(self) -> Any:
        raise NotImplementedError

    def to_json(self, indent: int | None = 2) -> str:
        """The JSON document `invoke <job> --json` prints (stable key order)."""
        return json.dumps(self.to_dict(), indent=indent, sort_keys=True, default=str)


def kept_numbers(values: dict[str, Any]) -> dict[str, Number]:
    return {name: value for name, value in values.items()
            if isinstance(value, int | float | str) and not isinstance(value, bool)}
