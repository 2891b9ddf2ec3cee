"""The op surface's machinery: matching a call to the seed's signature or to one of the former ``xla_client``
call forms (:mod:`~backend.surface.call_forms`), and the sub-computations built with the ops that evaluators
and lowerings share (:mod:`~backend.surface.computations`). The op functions themselves are :mod:`backend.ops`.
"""
