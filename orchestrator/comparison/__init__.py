"""How a device's arrays compare with their references: the one vocabulary every comparison
uses (the runner's outputs, `invoke verify` and its localisation, the profile's
intermediates, `invoke evaluate`). numpy only, no torch.

departure.py: where two arrays differ bit for bit (a Departure: how many elements, the first
and the worst) and `judge`, the exact verdict over a program's outputs; accuracy.py: how far
outputs are from the float model (SNR, error in quantization steps, top-1/top-5) and the one
check of the accuracy gates; tolerance.py: the tolerance comparison of a product without an
exact reference; mismatch.py: a passing run whose comparison failed, as an output mismatch.
"""
