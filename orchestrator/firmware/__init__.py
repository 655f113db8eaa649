"""The firmware layer: build a firmware configuration and run it on a simulator, and what the
NPU model adds to a run's result (npu_model_facts)."""
