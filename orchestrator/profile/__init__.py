"""Per-operator profiles: an ETDump read by ExecuTorch's devtools Inspector (with the
product's ETRecord) into a table of where the time went, written as JSON, CSV and a Chrome
trace."""
