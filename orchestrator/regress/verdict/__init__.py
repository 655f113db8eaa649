"""A cell's verdict: the metrics it tracks, the baselines they are read against, the outcome."""
