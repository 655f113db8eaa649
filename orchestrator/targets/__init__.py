"""The target catalogue: every supported target, read from data and validated on load."""

from __future__ import annotations

from orchestrator.targets.catalogue import Catalogue, CatalogueError, load_catalogue
from orchestrator.targets.model import NpuFamily, Platform, Region, Simulator, Target

__all__ = [
    "Catalogue",
    "CatalogueError",
    "NpuFamily",
    "Platform",
    "Region",
    "Simulator",
    "Target",
    "load_catalogue",
]
