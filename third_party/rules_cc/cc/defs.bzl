"""Offline stand-in for @rules_cc: the C++ rules as thin wrappers over Bazel 4's native rules.

Debian's bazel-rules-cc 0.0.4 needs `use_cpp_toolchain`, which Bazel 4.2.3 lacks, so
the workspace maps @rules_cc here instead (see ../shared/BAZEL_OFFLINE.md).
"""

def cc_binary(**kwargs):
    native.cc_binary(**kwargs)

def cc_library(**kwargs):
    native.cc_library(**kwargs)

def cc_test(**kwargs):
    native.cc_test(**kwargs)

def objc_library(**kwargs):
    native.objc_library(**kwargs)

def cc_proto_library(**kwargs):
    native.cc_proto_library(**kwargs)

def cc_toolchain(**kwargs):
    native.cc_toolchain(**kwargs)

def cc_toolchain_suite(**kwargs):
    native.cc_toolchain_suite(**kwargs)
