"""What every backend shares at run time: the Backend protocol and the checks of ``execute``'s arguments
(:mod:`~backend.runtime.protocol`), the graph walker (:mod:`~backend.runtime.walker`), the infeed and outfeed
(:mod:`~backend.runtime.host_io`), custom-call targets (:mod:`~backend.runtime.custom_calls`), what an evaluator's
or lowering's ``ctx`` provides (:mod:`~backend.runtime.context`), the backend-neutral halves of the
point-to-point and side-effect ops, and the ops that are the same on every backend
(:mod:`~backend.runtime.creation`, :mod:`~backend.runtime.control_flow`, :mod:`~backend.runtime.internal`: each
backend's family module registers a one-line function calling them).
"""
