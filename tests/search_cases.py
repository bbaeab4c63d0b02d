"""What readers type into the site's search, and the page each query must find.

``CASES`` holds (language, query as a reader types it, expected page path relative to the
language folder, e.g. "explanation/data.html"). tests/test_browser.py searches every query
with the built site's search page in Chromium (at the address its form submits for the
query; typed into its box, one query per language); the expected page must be among the
first ``TOP`` results. Queries are written as readers type them: single terms, questions,
pasted error messages; Chinese with and without spaces (the site's splitter cuts a run of
Chinese into the index's words; question and function words do not count). Add a case
when a page is written.
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
# Questions and phrases as readers type them.
CASES += [
    ("en", "memory leak when logging the loss", "howto/log-losses.html"),
    ("en", "truncated BPTT", "howto/truncated-bptt.html"),
    ("en", "freeze part of the parameters", "howto/partial-stop-gradient.html"),
    ("en", "how do I freeze some layers of my model", "howto/freeze-vs-detach.html"),
    ("en", "what is the difference between detach and .data", "explanation/data.html"),
    ("en", "tensor.data vs tensor.detach()", "explanation/data.html"),
    ("en", "how do I convert a tensor to numpy", "howto/to-numpy.html"),
    ("en", "no_grad vs inference_mode", "explanation/no-grad-and-inference-mode.html"),
    ("en", "clone vs detach to copy a tensor", "howto/copy-a-tensor.html"),
    ("en", "why does detach_() fail on a view", "troubleshooting/detach-views-in-place.html"),
    ("en", "EMA teacher", "howto/target-network.html"),
    ("en", "train the discriminator on fake.detach()", "howto/gan-discriminator.html"),
    (
        "en",
        "call optimizer.step() between two backward passes",
        "howto/optimizer-step-between-backward.html",
    ),
    ("en", "move a tensor to the GPU without losing gradients", "howto/devices.html"),
    ("en", "stop gradient in a self-supervised loss", "howto/stop-gradient-ssl.html"),
    ("zh_CN", "detach 和 data 的区别", "explanation/data.html"),
    ("zh_CN", "计算图之外", "explanation/detach.html"),
    ("zh_CN", "张量的版本计数器", "explanation/in-place-correctness-check.html"),
    ("zh_CN", "截断BPTT", "howto/truncated-bptt.html"),
    ("zh_CN", "记录损失 内存泄漏", "howto/log-losses.html"),
    ("zh_CN", "冻结权重的一部分", "howto/partial-stop-gradient.html"),
    ("zh_CN", "冻结子网络还是分离输出", "howto/freeze-vs-detach.html"),
    ("zh_CN", "怎么把张量转成numpy", "howto/to-numpy.html"),
    ("zh_CN", "no_grad 和 inference_mode 有什么区别", "explanation/no-grad-and-inference-mode.html"),
    ("zh_CN", "如何复制一个张量", "howto/copy-a-tensor.html"),
    ("zh_CN", "用假样本训练判别器", "howto/gan-discriminator.html"),
    ("zh_CN", "第二次反向传播报错", "troubleshooting/backward-twice.html"),
    ("zh_CN", "自监督 停止梯度", "howto/stop-gradient-ssl.html"),
    ("zh_CN", "EMA 教师网络", "howto/target-network.html"),
    ("zh_CN", "张量在设备之间移动 梯度会丢吗", "howto/devices.html"),
    ("zh_CN", "optimizer.step 和 backward 的顺序", "howto/optimizer-step-between-backward.html"),
    ("zh_CN", "对视图原地 detach 报错", "troubleshooting/detach-views-in-place.html"),
    ("zh_CN", "叶子张量 原地操作 报错", "troubleshooting/leaf-in-place.html"),
]
# The whole message as torch prints it, pasted from a terminal.
_ERRORS.append(
    (
        "RuntimeError: Trying to backward through the graph a second time (or directly "
        "access saved tensors after they have already been freed). Saved intermediate "
        "values of the graph are freed when you call .backward() or autograd.grad(). "
        "Specify retain_graph=True if you need to backward through the graph a second "
        "time or if you need to access saved tensors after calling backward.",
        "troubleshooting/backward-twice.html",
    )
)
CASES += [(language, query, page) for language in ("en", "zh_CN") for query, page in _ERRORS]

# (language, query with words that no page holds or that do not count, the same query
# without them): both list the same pages, in the same order. A one-character word
# between spaces once emptied the results.
SAME_RESULTS = [
    ("zh_CN", "张量 的 版本", "张量 版本"),
    ("zh_CN", "怎么 截断 计算图", "截断 计算图"),
    ("en", "how do I detach a tensor", "detach tensor"),
]
