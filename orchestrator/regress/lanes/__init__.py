"""The lanes a cell runs in (model, app, verify) behind the engine's narrow stage interface."""
