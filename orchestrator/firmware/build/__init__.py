"""Firmware builds: CMake/Ninja driver, per-config build directories, memory reports."""

from __future__ import annotations

from orchestrator.firmware.build.config import BuildConfig, config_for_target
from orchestrator.firmware.build.driver import BuildResult, build_firmware

__all__ = ["BuildConfig", "BuildResult", "build_firmware", "config_for_target"]
