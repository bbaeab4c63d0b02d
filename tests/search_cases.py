"""What readers type into the site's search, and the page each query must find.

``CASES`` holds (language, query as a reader types it, expected page path relative to the
language folder, e.g. "explanation/data.html"). tests/test_browser.py types every query into
the built site's search page in Chromium; the expected page must be among the first
``TOP`` results. Chinese is typed without spaces: the site's splitter cuts it into the
index's words. Add a case when a page is written.
"""

TOP = 3

# Error messages as readers paste them, each with its troubleshooting entry; every one
# is searched in both languages (the pages quote torch's message verbatim).
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
    ("en", "storage", "explanation/data.html"),
    ("en", "version counter", "explanation/in-place-correctness-check.html"),
    ("en", "inference_mode", "explanation/no-grad-and-inference-mode.html"),
    ("en", "straight-through", "howto/straight-through-estimator.html"),
    ("en", "discriminator", "howto/gan-discriminator.html"),
    ("en", "sigmoid", "examples/plot_00_sigmoid_gradient.html"),
    ("en", "truncated backpropagation", "howto/truncated-bptt.html"),
    ("en", "errata", "explanation/myths-and-errata.html"),
    ("en", "leaf", "glossary.html"),
    ("en", "numpy", "howto/to-numpy.html"),
    ("zh_CN", "共享存储", "explanation/data.html"),
    ("zh_CN", "版本计数器", "explanation/in-place-correctness-check.html"),
    ("zh_CN", "原地分离", "explanation/detach_.html"),
    ("zh_CN", "直通估计器", "howto/straight-through-estimator.html"),
    ("zh_CN", "判别器", "howto/gan-discriminator.html"),
    ("zh_CN", "叶子张量", "examples/plot_03_detached_new_leaf.html"),
    ("zh_CN", "截断计算图", "tutorial/cutting-the-graph.html"),
    ("zh_CN", "勘误", "explanation/myths-and-errata.html"),
    ("zh_CN", "嵌入", "howto/export-embeddings.html"),
    ("zh_CN", "教师网络", "howto/target-network.html"),
]
CASES += [(language, query, page) for language in ("en", "zh_CN") for query, page in _ERRORS]
