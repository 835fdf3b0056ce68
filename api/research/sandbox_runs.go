package research

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	models "github.com/gatehouse/gatehouse/models/research"
)

// Long-poll bounds of sandbox.runs.
const (
	runsWaitCap  = 300 * time.Second
	runsPollTick = 200 * time.Millisecond
	// runsOutputTail is how much of each run's output sandbox.runs shows;
	// sandbox.terminal shows it all.
	runsOutputTail = 4 << 10
	// defaultTerminalTail is sandbox.terminal's tail without one.
	defaultTerminalTail = 200
)

// reader answers how to read sandbox sb: through this process's provider
// when it holds the sandbox; else through the sandbox agent of its Pod
// (kubernetes) or the task queue of the worker host holding it (a local
// sandbox with api and worker split).
func (s *Service) reader(ctx context.Context, sb models.Sandbox) (sandboxReader, error) {
	p, err := s.providers().Get(sb.Provider)
	if err != nil {
		return nil, err
	}
	in, ok := p.(sandbox.Inspector)
	if !ok {
		// A Pod that runs the sandbox agent records its runs.
		if remote, ok := s.remoteFor(ctx, sb); ok {
			return remote, nil
		}
		return nil, errSandboxInspect
	}
	if h, ok := in.(interface{ Holds(string) bool }); ok && sb.Status != models.SandboxFailed && !h.Holds(sb.UID) {
		if remote, ok := s.remoteFor(ctx, sb); ok {
			return remote, nil
		}
		return nil, sandboxElsewhere(sb)
	}
	return localReader{insp: in}, nil
}

// sandboxElsewhere is the answer for a local sandbox whose records are on
// another host than this API process and whose workflow names no host
// queue to ask (it predates host queues): say so, rather than show no runs
// or files.
func sandboxElsewhere(sb models.Sandbox) *ToolError {
	return toolErr(CodeUnavailable, "/sandbox_uid", "local sandbox %s keeps its runs and files on the host of the worker that "+
		"provisioned it, and its workflow names no host task queue to ask: run the api and the worker on one host "+
		"(as gatehouse dev does) or share GATEHOUSE_DATA_DIR between them", sb.UID)
}

// sandboxFor decodes, checks access and picks the sandbox and its reader.
func (s *Service) sandboxFor(ctx context.Context, c *Call) (sandboxArgs, models.Sandbox, sandboxReader, error) {
	in, err := s.sandboxCall(ctx, c)
	if err != nil {
		return in, models.Sandbox{}, nil, err
	}
	sb, err := s.pickSandbox(ctx, in)
	if err != nil {
		return in, sb, nil, err
	}
	insp, err := s.reader(ctx, sb)
	var elsewhere *ToolError
	if errors.As(err, &elsewhere) {
		return in, sb, nil, elsewhere
	}
	if err != nil {
		return in, sb, nil, toolErr(CodeUnsupported, "/sandbox_uid", "provider %s does not record runs here", sb.Provider)
	}
	return in, sb, insp, nil
}

func sandboxRuns(ctx context.Context, s *Service, c *Call) (any, error) {
	in, sb, insp, err := s.sandboxFor(ctx, c)
	if err != nil {
		return nil, err
	}
	wait := min(time.Duration(in.WaitSeconds)*time.Second, runsWaitCap)
	start := time.Now()
	runs, err := insp.Runs(ctx, sb.UID, wait)
	if err != nil {
		return nil, err
	}
	shown := make([]sandboxRunResp, 0, len(runs))
	for _, r := range runs {
		out, cut := r.Output, r.Truncated
		if len(out) > runsOutputTail {
			out, cut = out[len(out)-runsOutputTail:], true
		}
		shown = append(shown, sandboxRunResp{Seq: r.Seq, Command: r.Command, Status: r.Status, StartedAt: r.StartedAt,
			EndedAt: r.EndedAt, ExitCode: r.ExitCode, Output: out, OutputTruncated: cut})
	}
	return sandboxRunsResp{SandboxUID: sb.UID, SandboxStatus: sb.Status, Runs: shown, Count: len(shown),
		Running: sandbox.Running(runs), WaitedSeconds: int(time.Since(start).Seconds())}, nil
}

func sandboxTerminal(ctx context.Context, s *Service, c *Call) (any, error) {
	in, sb, insp, err := s.sandboxFor(ctx, c)
	if err != nil {
		return nil, err
	}
	var since time.Time
	if in.Since != "" {
		if since, err = time.Parse(time.RFC3339Nano, in.Since); err != nil {
			return nil, invalid("/since", "since must be an RFC 3339 time")
		}
	}
	runs, err := insp.Runs(ctx, sb.UID, 0)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, r := range runs {
		if r.StartedAt.Before(since) {
			continue
		}
		lines = append(lines, "$ "+r.Command)
		if r.Output != "" {
			lines = append(lines, strings.Split(strings.TrimSuffix(r.Output, "\n"), "\n")...)
		}
		switch {
		case r.Status == sandbox.RunRunning:
			lines = append(lines, "[running]")
		case r.ExitCode != nil:
			lines = append(lines, fmt.Sprintf("[%s %d]", r.Status, *r.ExitCode))
		}
	}
	tail := in.Tail
	if tail == 0 {
		tail = defaultTerminalTail
	}
	cut := len(lines) > tail
	if cut {
		lines = lines[len(lines)-tail:]
	}
	return sandboxTerminalResp{SandboxUID: sb.UID, Lines: lines, Text: strings.Join(lines, "\n"), Truncated: cut, AsOf: s.now()}, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._@+=-]+`)

// outputName is the storage name of a pulled path: the sandbox uid and the
// path, flattened into storage's name alphabet.
func outputName(uid, p string) string {
	n := uid + "-" + strings.Trim(unsafeName.ReplaceAllString(path.Clean(p), "_"), "_.")
	if len(n) > 200 {
		n = n[len(n)-200:]
		n = strings.TrimLeft(n, "._@+=-")
	}
	return n
}
