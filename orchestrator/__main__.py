"""`python -m orchestrator run ...`: `invoke run` without invoke's start-up
(orchestrator.commands.direct)."""

from orchestrator.commands.direct import main

if __name__ == "__main__":
    main()
