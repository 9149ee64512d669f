"""The onnxruntime settings every model of the companion runs with (tiles, dice, loose tiles)."""

from __future__ import annotations


def session_options(threads: int | None = None):
    """Full graph optimisation, `threads` intra-op threads (None: onnxruntime's default), quiet
    logs, and worker threads that sleep when idle instead of spinning: the models run one after
    the other (tile detector, tile classifier, dice detector, dice face model), each with its own
    thread pool, and a pool spinning after its run takes the cores the next model needs (on two
    cores a photo's tiles took 2 ms longer at the median with spinning on)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads:
        opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return opts


def open_model(path, what: str, trainer: str, error: type[Exception], opts=None):
    """A CPU session for the model file `path`; `error` ("{what} {path} is missing (train it with
    {trainer})" or "… cannot be loaded: why") where the file is missing or damaged."""
    import onnxruntime as ort

    if not path.is_file():
        raise error(f"{what} {path} is missing (train it with {trainer})")
    try:
        return ort.InferenceSession(str(path), opts or session_options(), providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own types for a damaged file
        raise error(f"{what} {path} cannot be loaded: {e}") from e
