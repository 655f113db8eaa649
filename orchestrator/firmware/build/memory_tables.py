"""Text tables for `invoke build`: image sections and per-region memory use."""

from __future__ import annotations

from orchestrator.firmware.build.driver import BuildResult


def _size(value: int) -> str:
    """Bytes with a readable unit."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale:
            return f"{value / scale:.1f} {unit}"
    return f"{value} B"


def format_build(result: BuildResult) -> str:
    """The build summary: what ran, the sections, the regions."""
    action = "built" if result.rebuilt else "up to date"
    lines = [f"{result.key}: {action} ({'configured, ' if result.configured else ''}"
             f"{result.seconds['configure'] + result.seconds['build']:.2f} s)",
             f"  elf       {result.elf}", f"  build id  {result.build_id}", "",
             f"  {'section':<20} {'address':>10} {'size':>10}  region (load region)"]
    for section in result.sections:
        placed = section.region or "-"
        if section.load_region and section.load_region != section.region:
            placed += f" ({section.load_region})"
        lines.append(f"  {section.name:<20} 0x{section.address:08x} {section.size:>10}  {placed}")
    lines += ["", f"  {'region':<8} {'origin':>10} {'used':>12} {'size':>12} {'use':>7}"]
    for region in result.regions:
        lines.append(f"  {region.name:<8} 0x{region.origin:08x} {_size(region.used):>12} "
                     f"{_size(region.length):>12} {region.percent:6.1f}%")
    return "\n".join(lines)
