// Package cli is tilookup's root command: global flags, the Factory, signal
// handling, and the one place where an error becomes a stderr line and an
// exit code.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/sanitize"
	"github.com/tilookup/tilookup/pkg/service"
)

// Main runs tilookup with the process's arguments and streams and returns
// the exit code. Tests and testscript call it in-process.
func Main() int {
	return Run(os.Args[1:], iostreams.System())
}

// Run executes one command line against the given streams.
func Run(args []string, ios *iostreams.IOStreams) int {
	// The signal watch starts in the root's pre-run, for the commands that
	// need it (see watchInterrupts), and stops before Run returns.
	w := &interrupts{stop: func() {}}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), interruptsKey{}, w))
	defer cancel()
	defer func() { w.stop() }()

	out := trackStdout(ios)
	v := Version()
	f := &online.Factory{Factory: &cmdutil.Factory{IO: ios, Version: v, UserAgent: "tilookup/" + v}}
	service.Attach(f)
	root := newRoot(f.Factory)
	addCommands(root, f, onlyCommand(root, args))
	routeStdLog(f.Factory)
	root.SetArgs(args)
	root.SetFlagErrorFunc(flagErrors(root, args))
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)

	if at, err := unknownCommand(root, args); err != nil {
		return reportError(ios.ErrOut, at, err)
	}
	cmd, err := root.ExecuteContextC(ctx)
	return reportError(ios.ErrOut, cmd, out.check(err))
}

// reportError prints err as one line and returns its exit code: the one
// place where an error becomes an exit code. cmd is the command that
// failed, which a mistake on the command line points to.
func reportError(w io.Writer, cmd *cobra.Command, err error) int {
	var reported *failure.Reported
	var raised *failure.Raised
	switch {
	case err == nil:
		return failure.ExitOK
	case errors.As(err, &reported):
		return reported.Code // already explained on screen
	}
	msg := sanitize.Line(err.Error())
	if isArgError(err) && !strings.Contains(msg, "--help") {
		msg += fmt.Sprintf(" (see '%s --help')", commandPath(cmd))
	}
	fmt.Fprintln(w, "tilookup: "+msg)
	if errors.As(err, &raised) {
		return raised.Code
	}
	return failure.ExitCode(err)
}

// isArgError tells a mistake on the command line, the one kind of error
// that points to --help: an ArgError, or an error of no kind, which only
// cobra's flag and argument checks return.
func isArgError(err error) bool {
	var argErr *cmdutil.ArgError
	var kinded failure.Kinded
	return errors.As(err, &argErr) || !errors.As(err, &kinded)
}

func commandPath(cmd *cobra.Command) string {
	if cmd == nil {
		return "tilookup"
	}
	return cmd.CommandPath()
}

// interrupts is the signal watch of one Run.
type interrupts struct{ stop func() }

type interruptsKey struct{}

// watchInterrupts gives cmd a context that ends on the first SIGINT,
// SIGTERM or SIGHUP (an ssh drop, a closed terminal), so that a command can
// stop cleanly (a bulk search keeps its complete prefix, a JSON array is
// closed, a document is written and marked incomplete); a second signal exits at once, for a user who does not
// want to wait for in-flight requests. Run stops the watch before it
// returns.
//
// Commands that only print (version, help, completion, and the shell's
// completion requests on every TAB) skip it: installing a signal handler
// starts a thread, a sizeable share of their start-up, and the default
// action of SIGINT suits them.
func watchInterrupts(cmd *cobra.Command) {
	w, _ := cmd.Context().Value(interruptsKey{}).(*interrupts)
	if w == nil || printsOnly(cmd) {
		return
	}
	ctx, cancel := context.WithCancel(cmd.Context())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			cancel()
		case <-done:
			return
		}
		select {
		case <-ch:
			os.Exit(failure.ExitInterrupted)
		case <-done:
		}
	}()
	w.stop = func() {
		signal.Stop(ch)
		close(done)
	}
	cmd.SetContext(ctx)
}

// printsOnly tells the commands that print something and exit: the root
// itself (help, --version), and those under version, help, completion and
// cobra's completion requests.
func printsOnly(cmd *cobra.Command) bool {
	for ; cmd.HasParent(); cmd = cmd.Parent() {
		if !cmd.Parent().HasParent() {
			switch cmd.Name() {
			case "version", "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
				return true
			}
			return false
		}
	}
	return true
}
