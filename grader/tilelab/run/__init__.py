"""Building and running the code under test, and reading what the runs left, without judging it: a
submission's scratch copy (`submission`), the CMake build tree and its CTest checks (`tree`) and what
one stage's build leaves there (`artifacts`), the scans of the compiled object before anything runs
(`forbidden`: the allow-list, whose policy is `allowlist`, reading
`symbols`, `libexports` and `disasm`; `includes`), the limits every build and check runs under (`sandbox`),
the judge's command line (`judge`), the runner's JSON results as typed, read-only values
(`result`, generated from grader/result_schema.toml; read by `ctest_results`, with CTest's JUnit report for the checks that wrote none), the
prebuilt kit (`kit`) and the grader's digest that keys it (`identity`), a batch's turns on the GPU
(`gputurns`), and the two wrappers CTest runs around a runner (`expect`, `sanitize`). It may import
`specs`; never `score`, `report` or `commands`."""
