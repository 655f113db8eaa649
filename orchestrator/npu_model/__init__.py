"""The NPU model: the Ethos-U55/U65/U85 computed in software from Vela command streams.

firmware/npu_model is the C core (one source for the firmware and the host); this package
builds it for the host (hostlib), reads the Ethos-U delegates of a compiled program
(binstream), runs them (execute) and checks them against the TOSA reference model (verify),
naming the first operation that departs (locate) and writes over live tensors (clobber).
"""

MODEL_NAME = "npu_model"
