extensions = ["gradcut.sphinxext.versions"]
exclude_patterns = ["_build"]
gradcut_results_dir = "results"
nitpicky = True
