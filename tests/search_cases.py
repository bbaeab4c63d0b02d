"""Queries readers type into the site's search, and the page each must find.

Each case is (language, query, page path relative to the language's root). The page
must be among the first TOP results. Error messages are pasted whole, as readers do.
"""

TOP = 3

_ERRORS = [
    (
        "element 0 of tensors does not require grad and does not have a grad_fn",
        "troubleshooting/does-not-require-grad.html",
    ),
    (
        "RuntimeError: Can't call numpy() on Tensor that requires grad. "
        "Use tensor.detach().numpy() instead.",
        "troubleshooting/numpy-requires-grad.html",
    ),
    (
        "RuntimeError: one of the variables needed for gradient computation has been "
        "modified by an inplace operation",
        "troubleshooting/modified-by-inplace.html",
    ),
    (
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place "
        "operation.",
        "troubleshooting/leaf-in-place.html",
    ),
    (
        "a view of a leaf Variable that requires grad is being used in an in-place "
        "operation.",
        "troubleshooting/leaf-in-place.html",
    ),
    (
        "RuntimeError: Can't detach views in-place. Use detach() instead.",
        "troubleshooting/detach-views-in-place.html",
    ),
    (
        "RuntimeError: Inference tensors cannot be saved for backward.",
        "troubleshooting/inference-tensors.html",
    ),
    (
        "RuntimeError: Trying to backward through the graph a second time",
        "troubleshooting/backward-twice.html",
    ),
    (
        "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() "
        "to copy the tensor to host memory first.",
        "howto/devices.html",
    ),
]

CASES: list[tuple[str, str, str]] = [
    (language, query, page) for language in ("en", "zh_CN") for query, page in _ERRORS
]
