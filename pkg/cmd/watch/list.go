package watch

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sanitize"
	"github.com/tilookup/tilookup/pkg/watch"
)

func newListCmd(f *online.Factory) *cobra.Command {
	opts := newOptions(f)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the watch lists of this profile and base URL",
		Long: `List names the watch lists kept for the current profile and base URL (with
--sandbox, the sandbox's), with the number of values, the time of the last run
and the changes and failures it reported. A list whose state cannot be read is
listed with the reason. -o json, ndjson and csv too.`,
		Example: `  tilookup watch list
  tilookup watch list -o json | jq -r '.[].name'`,
		Args: cmdutil.ExactArgs(0, "no argument"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, _, _, err := store(opts)
			if err != nil {
				return err
			}
			lists, err := st.List()
			if err != nil {
				return err
			}
			fm, err := cmdutil.Format(f.Factory, "watch list")
			if err != nil {
				return err
			}
			if fm == output.Table && len(lists) == 0 {
				return write(f, fmt.Sprintf("No watch list in %s\n", sanitize.String(st.Dir)))
			}
			w := cmdutil.NewListWriter(cmdutil.ListOptions(f.IO, fm), []string{"name", "values", "last_run", "changes", "errors", "error"})
			for _, l := range lists {
				if err := w.Write(l, []string{l.Name, strconv.Itoa(l.Values), l.LastRun, strconv.Itoa(l.Changes), strconv.Itoa(l.Errors), l.Problem}); err != nil {
					return err
				}
			}
			return w.Close()
		},
	}
	cmd.Flags().BoolVar(&opts.Sandbox, "sandbox", false, "the lists kept against the built-in sandbox")
	return cmd
}

func newForgetCmd(f *online.Factory) *cobra.Command {
	opts := newOptions(f)
	cmd := &cobra.Command{
		Use:   "forget NAME",
		Short: "Delete a watch list and its state",
		Long: `Forget deletes the state of the watch list NAME (of the current profile and
base URL; with --sandbox, the sandbox's): its next run compares with nothing.
It waits for a run of NAME in progress, as a run does. A NAME that does not
exist is an error (exit 2).`,
		Example: `  tilookup watch forget ours`,
		Args:    cmdutil.ExactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := watch.CheckName(name); err != nil {
				return cmdutil.UsageError("%v", err)
			}
			st, _, _, err := store(opts)
			if err != nil {
				return err
			}
			ok, err := st.Forget(name)
			if err != nil {
				return err
			}
			if !ok {
				return cmdutil.UsageError("no watch list %q in %s (tilookup watch list names them)", name, st.Dir)
			}
			return write(f, fmt.Sprintf("Forgot the watch list %s.\n", name))
		},
	}
	cmd.Flags().BoolVar(&opts.Sandbox, "sandbox", false, "a list kept against the built-in sandbox")
	return cmd
}

// write prints a line of a subcommand's own.
func write(f *online.Factory, s string) error {
	if _, err := io.WriteString(f.IO.Out, s); err != nil {
		return failure.WriteError(err)
	}
	return nil
}
