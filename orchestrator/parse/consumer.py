"""The line-consumer protocol and a small rule table helper most consumers are built from."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol

from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import LogLine

Handler = Callable[[re.Match[str], LogLine, LogFacts], None]


class Searcher(Protocol):
    """What a rule matches a line with: a compiled regex or a LazyPattern."""

    def search(self, string: str) -> re.Match[str] | None: ...


class LazyPattern:
    """A regex compiled on its first search: the parsers' ~100 rules cost nothing in a
    process that never parses a text log (a warm run reads the runner's binary protocol)."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def search(self, string: str) -> re.Match[str] | None:
        """re.Pattern.search, compiling the pattern the first time."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled.search(string)


class Consumer(Protocol):
    """Fed every line in order; returns True when it recognised the line."""

    def feed(self, line: LogLine, facts: LogFacts) -> bool: ...


class RuleConsumer:
    """Matches a line against (regex, handler) rules; the first match handles it."""

    rules: Sequence[tuple[Searcher, Handler]] = ()
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


def rule(pattern: str, flags: int = 0) -> Callable[[Handler], tuple[LazyPattern, Handler]]:
    """Decorator: turn a handler function into a (regex, handler) rule."""

    def wrap(handler: Handler) -> tuple[LazyPattern, Handler]:
        return LazyPattern(pattern, flags), handler

    return wrap


def marker(name: str) -> Handler:
    """A handler that only records that `name` happened."""

    def handle(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
        facts.mark(name, line.number)

    return handle


def flag(pattern: str, name: str) -> tuple[LazyPattern, Handler]:
    """A rule that recognises `pattern` and records marker `name`."""
    return LazyPattern(pattern), marker(name)


def number(text: str) -> int:
    """An integer written in decimal or 0x-hex."""
    return int(text, 16) if text.lower().startswith("0x") else int(text)
