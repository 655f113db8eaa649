"""ExecuTorch runtime Error codes (runtime/core/error.h) by value, to name logged statuses."""

from __future__ import annotations

ERROR_NAMES = {
    0x00: "Ok",
    0x01: "Internal",
    0x02: "InvalidState",
    0x03: "EndOfMethod",
    0x04: "AlreadyLoaded",
    0x10: "NotSupported",
    0x11: "NotImplemented",
    0x12: "InvalidArgument",
    0x13: "InvalidType",
    0x14: "OperatorMissing",
    0x15: "RegistrationExceedingMaxKernels",
    0x16: "RegistrationAlreadyRegistered",
    0x20: "NotFound",
    0x21: "MemoryAllocationFailed",
    0x22: "AccessFailed",
    0x23: "InvalidProgram",
    0x24: "InvalidExternalData",
    0x25: "OutOfResources",
    0x30: "DelegateInvalidCompatibility",
    0x31: "DelegateMemoryAllocationFailed",
    0x32: "DelegateInvalidHandle",
}


def status_details(code: int) -> dict[str, object]:
    """Classification details for an ExecuTorch status code: its value and name."""
    return {"status_code": code, "status_name": ERROR_NAMES.get(code, f"unknown 0x{code:x}")}
