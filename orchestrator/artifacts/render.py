"""The text form of an inspection (the JSON form is Inspection.to_dict)."""

from __future__ import annotations

from typing import Any


def _tensor(spec: dict[str, Any]) -> str:
    if spec["kind"] != "tensor":
        return str(spec["kind"])
    text = f"{spec['dtype']}{spec['shape']} dim_order {tuple(spec['dim_order'])}"
    quant = spec.get("quantization")
    if quant:
        text += (f" (quantized {quant['dtype']} at the edge: scale {quant['scale']:.6g}, "
                 f"zero point {quant['zero_point']})")
    return text


def _delegate(delegate: dict[str, Any]) -> list[str]:
    line = f"    delegate {delegate['backend']}: {delegate['bytes']} B ({delegate['location']})"
    facts = delegate.get("ethos_u")
    if not facts:
        return [line]
    optimizer = facts["optimizer_config"]
    compiled = (f"{optimizer['product']} {optimizer['macs']} MACs (cmd stream v"
                f"{optimizer['cmd_stream_version']})" if optimizer else "not recorded")
    fast = facts["fast_scratch_bytes"]
    return [line,
            f"      target {facts['target']}, system config {facts['system_config']}, "
            f"memory mode {facts['memory_mode']}",
            f"      Vela flags: {' '.join(facts['vela_flags']) or '(none)'}; TOSA "
            f"{facts['tosa_spec']}",
            f"      command stream OPTIMIZER_CONFIG: {compiled}",
            f"      scratch {facts['scratch_bytes']} B, fast scratch "
            f"{'not recorded in the stream' if fast is None else f'{fast} B'}, weights "
            f"{facts['weight_bytes']} B, command stream {facts['command_stream_bytes']} B"
            + (f"; external blocks: {', '.join(facts['external_blocks'])}"
               if facts["external_blocks"] else "")]


def _method(method: dict[str, Any]) -> list[str]:
    lines = [f"  method {method['name']}: planned memory {method['planned_bytes']} B "
             f"(buffers {method['planned_buffers']})"]
    lines += [f"    input {i}: {_tensor(s)}" for i, s in enumerate(method["inputs"])]
    lines += [f"    output {i}: {_tensor(s)}" for i, s in enumerate(method["outputs"])]
    for op in method["operators"]:
        lines.append(f"    operator {op['name']} ({op['library'] or 'no kernel library'})")
    for delegate in method["delegates"]:
        lines += _delegate(delegate)
    return lines


def render_inspection(document: dict[str, Any]) -> str:
    """The inspection as lines for a terminal."""
    kind = "bundled program (BP08)" if document["kind"] == "bundle" else "program (ET12)"
    lines = [f"{document['file']}: ExecuTorch {kind}, {document['bytes']} B, "
             f"sha256 {document['sha256'][:16]}"]
    if document["targets"]:
        lines.append(f"  compiled for {', '.join(document['targets'])}")
    for method in document["methods"]:
        lines += _method(method)
    bundle = document["bundle"]
    if bundle:
        for suite in bundle["test_suites"]:
            lines.append(f"  test suite {suite['method']}: {suite['cases']} cases "
                         f"(bundle schema v{bundle['version']})")
    runtime = document["runtime"]
    if runtime["runnable"]:
        lines.append(f"  runs on this tool's runtime (ExecuTorch {runtime['executorch']})")
    else:
        lines.append(f"  does NOT run on this tool's runtime (ExecuTorch "
                     f"{runtime['executorch']}):")
        lines += [f"    - {reason}" for reason in runtime["reasons"]]
    return "\n".join(lines)


def render_verify(document: dict[str, Any]) -> str:
    """The text form of `invoke verify --pte`: the verdict, then one line per lane and per
    check that departs."""
    verdict = "exact" if document["exact"] else "NOT exact"
    lines = [f"{document['artifact']['file']} on {document['npu']['config']} (NPU "
             f"model on the host) vs the device: {verdict}",
             f"  inputs: {document['inputs']}; reference: {document['reference']}"]
    for lane in document["lanes"]:
        if lane["status"] != "checked":
            lines.append(f"  {lane['simulator']}: not checked: {lane['reason']} "
                         f"(next: {lane['next']})")
            continue
        checks = lane["checks"]
        state = "exact" if lane["exact"] else "NOT exact"
        lines.append(f"  {lane['simulator']} ({lane['executor']}): {state}; {lane['ran']} of "
                     f"{lane['cases']} input sets ran, {len(checks)} outputs compared")
        lines += [f"    case {c['case']} delegate {c['delegate']} output {c['output']}: "
                  + (c["note"] or f"{c['differing']}/{c['elements']} differ, max "
                                  f"{c['max_steps']} steps ({c['compared']})")
                  for c in checks if not c["exact"]]
    lines.append("  seconds: " + ", ".join(f"{k} {v}" for k, v in document["seconds"].items()))
    return "\n".join(lines)
