"""What every backend shares at run time: the Backend protocol and the checks of ``execute``'s arguments
(:mod:`~backend.runtime.protocol`), the graph walker (:mod:`~backend.runtime.walker`), the infeed and outfeed
(:mod:`~backend.runtime.host_io`), custom-call targets (:mod:`~backend.runtime.custom_calls`), and the
backend-neutral halves of the point-to-point and side-effect ops.
"""
