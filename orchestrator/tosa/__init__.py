"""TOSA: the delegated Ethos-U partitions of a compiled product, run exactly on the host.

partitions.py reads what compile stored (no torch); capture.py records each partition's TOSA
flatbuffer while ExecuTorch lowers (imports executorch); reference_model.py runs a flatbuffer
on the pinned TOSA reference model. One module, shared by the exact reference and the
virtual NPU's verify.
"""
