"""The lowering (export, quantize, partition) and its store on disk."""
