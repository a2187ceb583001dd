"""Building and running the code under test, and reading what the runs left, without judging it.
The grading engine: what becomes of one stage in a build tree, as one typed outcome (`outcome`),
found in four steps by `engine` -- build (`tree`, `artifacts`: only this build's objects), scan
(`refusal`, composing side by side `symbols`, the allow-list's policy `allowlist`, `libexports`,
`disasm` and the wording of what they found, `forbidden`; and `includes`, in the header folders
`toolchain` finds), run and collect (`checkpasses`: three CTest passes, a hang stops the
rest, only a pass's own JUnit report vouches for a result file). Besides: a submission's scratch copy
(`submission`), the limits every build and check runs under (`sandbox`), the judge's command line,
built in Python only here (`judge`), a predict-then-measure question's run (`measure`), the runner's
JSON results as typed, read-only values (`result`, generated from grader/result_schema.toml; read by
`ctest_results`, with CTest's JUnit report for the checks that wrote none), the prebuilt kit (`kit`)
and the grader's digest that keys it (`identity`), the kit's CMake detection that a submission's
tree takes (`detection`), the two wrappers CTest runs around a runner (`expect`, `sanitize`), and
nvcc's back end on a kernel file for the performance model, read at build time (`sass_facts`: the
compiler wheels found and run by `nvcc_wheel`, the SASS by `sass`, ptxas's report by
`kernel_resources`, blocks per SM by `occupancy`). It may import `specs`; never `score`,
`report`, `grading` or `commands`."""
