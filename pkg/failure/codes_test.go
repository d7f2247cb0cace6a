package failure

import "testing"

// Every code a kind can end a run with is explained in the table, once.
func TestCodesExplainEveryKind(t *testing.T) {
	explained := map[int]int{}
	for _, c := range Codes() {
		explained[c.Code]++
		if c.Meaning == "" {
			t.Errorf("exit %d has no meaning", c.Code)
		}
	}
	for _, k := range []Kind{"", Usage, Input, BadRequest, Config, Auth, Forbidden, NotFound, RateLimited, Server, Network, Timeout, Decode, NoMatch, Interrupted, IO} {
		if explained[k.ExitCode()] != 1 {
			t.Errorf("kind %q exits %d, explained %d times", k, k.ExitCode(), explained[k.ExitCode()])
		}
	}
}
