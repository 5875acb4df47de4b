#!/bin/sh
echo "bazel coverage needs remote_coverage_tools, which this offline example does not have" >&2
exit 1
