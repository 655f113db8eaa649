"""A compiled product's host programs for new inputs, without recompiling: the float model
and the lowered program run exactly (the same reference the compile stage wrote for its own
inputs). Imports torch.

The lowered program is a product: the lowering keeps its edge program (before emitting) in
the ETRecord, serialised by ExecuTorch's own exir serde, so a new process reads it back in
seconds instead of lowering the model again (mv2: about a compile). A product
without an ETRecord (devtools could not write it) is lowered again from the same request.
Either way the program is checked against the product before it is trusted: its exact
outputs on the product's own inputs must equal reference_exact/ bit for bit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from orchestrator.aot.key import CompileRequest
from orchestrator.aot.models.nesting import leaves, rebuild, structure
from orchestrator.aot.products import Product
from orchestrator.aot.tensors import load_array
from orchestrator.comparison.departure import judge
from orchestrator.foundation.errors import OrchestratorError

CHANNELS_LAST = (0, 2, 3, 1)


def kept_program(product: Product) -> Any:
    """The product's lowered edge program read back from its ETRecord (None: no ETRecord, or
    devtools cannot read it)."""
    if product.etrecord is None:
        return None
    from orchestrator.aot.compiler import captured_output

    # importing ExecuTorch warns (deprecated importlib calls) and the deserialiser logs
    # every op it resolves: both kept out of the console
    with captured_output():
        from executorch.backends.cortex_m.passes import replace_quant_nodes_pass  # noqa: F401
        from executorch.devtools.etrecord import parse_etrecord

        try:
            return parse_etrecord(str(product.etrecord)).edge_dialect_program
        except Exception:  # noqa: BLE001 - an unreadable record: lower again instead
            return None


class HostPrograms:
    """The float model and the product's exact program, loaded once, run per input set."""

    def __init__(self, request: CompileRequest, product: Product) -> None:
        from orchestrator.aot.models.loading import load_model

        self.product = product
        self.model, example = load_model(request.model, request.inputs,
                                          request.options.torchvision)
        self.input_structure = structure(example)   # how the flat input sets nest
        # the inputs' memory formats, as lowered (channels-last for the Cortex-M path)
        self.channels_last = tuple(_channels_last(tensor) for tensor in leaves(example))
        self.program: Any = None
        self.reloaded = False   # True: read from the ETRecord; False: lowered again
        if not product.reference_exact:
            return
        self.program = kept_program(product)
        self.reloaded = self.program is not None
        if self.program is None:
            self._lower_again(request, example)
        else:
            self.channels_last = tuple(tuple(t.dim_order) == CHANNELS_LAST
                                       for t in product.inputs)
        self._check_same_program(self.lowered_inputs([load_array(t) for t in product.inputs]))

    def _lower_again(self, request: CompileRequest, example: tuple[Any, ...]) -> None:
        from orchestrator.aot.compiler import calibration_for, captured_output
        from orchestrator.aot.lower.lowering import lower

        samples = calibration_for(request, example)
        with captured_output():
            lowered = lower(self.model, example, samples, request.options, request.model.name)
        self.program = lowered.edge.exported_program()
        self.channels_last = tuple(_channels_last(tensor) for tensor in leaves(lowered.inputs))

    def _check_same_program(self, inputs: tuple[Any, ...]) -> None:
        again = self._run_exact(inputs)
        stored = [load_array(record) for record in self.product.reference_exact]
        if again is None or not judge(again, stored).passed:
            raise OrchestratorError(
                f"the lowered program of {self.product.manifest['model']['name']} gave "
                f"another result than product {self.product.key} (its exact reference "
                "differs)", "recompile: remove the product directory and rerun the command")

    def _run_exact(self, inputs: Sequence[Any]) -> list[np.ndarray[Any, Any]] | None:
        from orchestrator.exact.interpreter import ProgramRunner

        runner = ProgramRunner(self.program, {p.delegate: p for p in self.product.partitions})
        return [o.detach().contiguous().numpy() for o in runner.run(list(inputs))]

    def float_outputs(self, arrays: Sequence[np.ndarray[Any, Any]]) -> list[np.ndarray[Any, Any]]:
        """The float model's outputs for one input set."""
        from orchestrator.aot.compiler import run_model

        nested = rebuild(self.input_structure, _tensors(arrays))
        return [t.numpy() for t in run_model(self.model, nested)]

    def exact_outputs(self, arrays: Sequence[np.ndarray[Any, Any]]
                      ) -> list[np.ndarray[Any, Any]] | None:
        """The lowered program's exact outputs for one input set (None: the product has no
        exact reference, see its exact_reference record)."""
        if self.program is None:
            return None
        return self._run_exact(self.lowered_inputs(arrays))

    def lowered_inputs(self, arrays: Sequence[np.ndarray[Any, Any]]) -> tuple[Any, ...]:
        """A flat input set as the lowered program takes it (the example's memory format)."""
        import torch

        return tuple(t.contiguous(memory_format=torch.channels_last) if last else t
                     for t, last in zip(_tensors(arrays), self.channels_last, strict=True))


def _tensors(arrays: Sequence[np.ndarray[Any, Any]]) -> tuple[Any, ...]:
    import torch

    return tuple(torch.from_numpy(np.ascontiguousarray(a)) for a in arrays)


def _channels_last(example: Any) -> bool:
    import torch

    return bool(example.dim() == 4 and not example.is_contiguous()
                and example.is_contiguous(memory_format=torch.channels_last))


def compile_request_of(product: Product) -> CompileRequest:
    """The compile request that made `product`, from its manifest (a product compiled from
    user input or calibration files names only their digests: refused)."""
    from orchestrator.aot.models.sources import ModelRef
    from orchestrator.aot.options import CompileOptions

    manifest = product.manifest
    identity = manifest.get("identity") or {}
    if identity.get("inputs") or identity.get("calibration"):
        raise OrchestratorError(f"product {product.key} was compiled from input or calibration "
                                "files, which its manifest names only by digest",
                                "use invoke evaluate --calibration DIR for such a model")
    model = manifest["model"]
    options = dict(manifest["options"])
    options["vela_flags"] = tuple(options.get("vela_flags") or ())
    request = CompileRequest(ModelRef(model["kind"], model["name"], model["location"],
                                      model["digest"]), CompileOptions(**options))
    if request.key() != product.key:
        raise OrchestratorError(f"product {product.key} does not match its own manifest (it "
                                f"reads as {request.key()})",
                                "recompile: remove the product directory and rerun")
    return request
