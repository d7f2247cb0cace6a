package service

import (
	"fmt"
	"io"

	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

// startSandbox runs the reference server in-process on loopback and points
// this process's calls at it with its demo token. The caller closes it.
func startSandbox(f *online.Factory) (*sandbox.Server, error) {
	srv, err := sandbox.Start(sandbox.Options{}, "", "")
	if err != nil {
		return nil, failure.Wrap(failure.Config, err, "cannot start the sandbox: "+err.Error())
	}
	f.Override("base_url", srv.SearchURL)
	f.Override("events_base_url", srv.EventsURL)
	f.Override("allow_insecure_http", "false")
	f.OverrideToken(sandbox.DemoToken)
	// Each run's sandbox listens on another port and its answers name it
	// (detail_url): a stored answer would point at a server long gone.
	f.Override("cache", "0")
	if f.IO.IsStderrTTY() {
		// Its detail links point at a port that closes with this
		// command; a person would otherwise click a dead link.
		fmt.Fprintln(f.IO.ErrOut, "Using the built-in sandbox: demo data, not real intelligence.\n"+
			"Its detail links live only while it runs; tilookup sandbox serve keeps one up.")
	}
	return srv, nil
}

// sandboxCloser is startSandbox as the commands' Options hold it: a
// function that starts the server and gives what stops it.
func sandboxCloser(f *online.Factory) (io.Closer, error) {
	srv, err := startSandbox(f)
	if err != nil {
		return nil, err
	}
	return srv, nil
}
