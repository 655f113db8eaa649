"""The one error type users see: a cause and the next command to run."""

from __future__ import annotations


class OrchestratorError(Exception):
    """A failure a user can act on: one sentence naming the cause, plus the next command."""

    def __init__(self, cause: str, next_step: str | None = None) -> None:
        self.cause = cause.rstrip(".")
        self.next_step = next_step
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """The one-line message: cause, then what to run next."""
        if self.next_step:
            return f"{self.cause}; next: {self.next_step}"
        return f"{self.cause}."
