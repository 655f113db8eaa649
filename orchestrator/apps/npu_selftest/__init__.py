"""The NPU self-test app: a small Vela command stream, compiled at test time, run through the
NPU model on the target CPU (QEMU) without the ExecuTorch runtime, its outputs
checked on the device against the TOSA reference model's, computed on the host."""
