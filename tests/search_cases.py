"""What readers type into the site's search, and the page each query must find.

``CASES`` holds (language, query as a reader types it, expected page path relative to the
language folder, e.g. "explanation/data.html"). tests/test_browser.py types every query into
the built site's search page in Chromium; the expected page must be among the first
``TOP`` results. Chinese is typed without spaces: the site's splitter cuts it into the
index's words. Add a case when a page is written.
"""

TOP = 3

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
