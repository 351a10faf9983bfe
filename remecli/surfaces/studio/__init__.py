"""Studio: a local web UI over the operations layer, served by `remecli serve` at `/`."""
