// How the language server's Node process is started: the flags the extension's language client
// passes (run and debug), which the lsp tests and bench/lsp.mjs pass too, so they measure the
// server as users run it.
//
// A young generation of 64 MB per semi-space from the start (V8's default starts at 1 MB and grows to
// 16 MB): opening a 10,000-route table then takes one or two scavenges instead of six, each of which
// copies the part of the parse tree built since the last (the decoded didOpen message already fills
// a default young generation when the analysis starts). Its cost: ~10 MB more peak RSS for an 8 MB
// table (test/lsp/memory.test.ts holds the budget). V8 sizes the young generation at process
// start, so the server cannot set this itself.
export const SERVER_EXEC_ARGV: readonly string[] = ['--min-semi-space-size=64', '--max-semi-space-size=64'];
