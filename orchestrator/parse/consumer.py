"""The line-consumer protocol and a small rule table helper most consumers are built from."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol

from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import LogLine

Handler = Callable[[re.Match[str], LogLine, LogFacts], None]


class Consumer(Protocol):
    """Fed every line in order; returns True when it recognised the line."""

    def feed(self, line: LogLine, facts: LogFacts) -> bool: ...


class RuleConsumer:
    """Matches a line against (regex, handler) rules; the first match handles it."""

    rules: Sequence[tuple[re.Pattern[str], Handler]] = ()
    et_only: bool = False

    def feed(self, line: LogLine, facts: LogFacts) -> bool:
        """Run the first rule whose regex matches the line's message."""
        if self.et_only and not line.is_et:
            return False
        for pattern, handler in self.rules:
            match = pattern.search(line.message)
            if match:
                handler(match, line, facts)
                return True
        return False


def rule(pattern: str, flags: int = 0) -> Callable[[Handler], tuple[re.Pattern[str], Handler]]:
    """Decorator: turn a handler function into a (compiled regex, handler) rule."""

    def wrap(handler: Handler) -> tuple[re.Pattern[str], Handler]:
        return re.compile(pattern, flags), handler

    return wrap


def marker(name: str) -> Handler:
    """A handler that only records that `name` happened."""

    def handle(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
        facts.mark(name, line.number)

    return handle


def flag(pattern: str, name: str) -> tuple[re.Pattern[str], Handler]:
    """A rule that recognises `pattern` and records marker `name`."""
    return re.compile(pattern), marker(name)


def number(text: str) -> int:
    """An integer written in decimal or 0x-hex."""
    return int(text, 16) if text.lower().startswith("0x") else int(text)
