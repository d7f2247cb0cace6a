// Package configcmd is `tilookup config get|set|unset|list|path`.
package configcmd

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// NewCmd is `tilookup config`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config <command>",
		Short: "Read and write settings in the config file",
		Long: `Settings resolve in this order, highest first: flag, environment variable
(TILOOKUP_*), the selected profile in the config file, the file's top level,
built-in default. With --profile NAME, set and unset write into that profile.

Keys:
` + keyHelp(),
	}
	completeKeys := func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return config.KeyNames(), cobra.ShellCompDirectiveNoFileComp
	}
	completeValues := func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return config.KeyNames(), cobra.ShellCompDirectiveNoFileComp
		}
		if k, ok := config.Lookup(args[0]); ok && len(args) == 1 {
			return k.Values, cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}

	cmd.AddCommand(&cobra.Command{
		Use:               "get <key>",
		Short:             "Print the effective value of a key",
		Args:              cmdutil.ExactArgs(1, "a key"),
		ValidArgsFunction: completeKeys,
		RunE: func(_ *cobra.Command, args []string) error {
			if _, ok := config.Lookup(args[0]); !ok {
				return config.UnknownKey(args[0])
			}
			cfg, err := f.ConfigUnchecked()
			if err != nil {
				return err
			}
			fmt.Fprintln(f.IO.Out, cfg.Get(args[0]))
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:               "set <key> <value>",
		Short:             "Write a key to the config file (mode 0600)",
		Args:              cmdutil.ExactArgs(2, "a key and a value"),
		ValidArgsFunction: completeValues,
		RunE: func(_ *cobra.Command, args []string) error {
			cfg, err := forEdit(f)
			if err != nil {
				return err
			}
			return cfg.Set(args[0], args[1])
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:               "unset <key>",
		Short:             "Remove a key from the config file",
		Args:              cmdutil.ExactArgs(1, "a key"),
		ValidArgsFunction: completeKeys,
		RunE: func(_ *cobra.Command, args []string) error {
			if _, ok := config.Lookup(args[0]); !ok {
				return config.UnknownKey(args[0])
			}
			cfg, err := forEdit(f)
			if err != nil {
				return err
			}
			return cfg.Unset(args[0])
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "Print every key with its effective value and where it comes from",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			cfg, err := f.ConfigUnchecked()
			if err != nil {
				return err
			}
			return list(f, cfg, cfg.Get("output"))
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "path",
		Short: "Print the config file's path",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			flagPath := ""
			if f.ConfigFlag != nil {
				flagPath = *f.ConfigFlag
			}
			p, err := config.Path(flagPath)
			if err != nil {
				return err
			}
			fmt.Fprintln(f.IO.Out, p)
			return nil
		},
	})
	return cmd
}

// forEdit loads the config so that --profile may name a profile that the
// write is about to create.
func forEdit(f *cmdutil.Factory) (*config.Config, error) {
	flagPath := ""
	if f.ConfigFlag != nil {
		flagPath = *f.ConfigFlag
	}
	path, err := config.Path(flagPath)
	if err != nil {
		return nil, err
	}
	return config.LoadForEdit(path, f.Flags)
}

func list(f *cmdutil.Factory, cfg *config.Config, format string) error {
	if format != "table" && format != "" {
		type entry struct {
			Key    string `json:"key"`
			Value  string `json:"value"`
			Source string `json:"source"`
		}
		w := cmdutil.NewListWriter(output.Format(strings.ToLower(format)), f.IO.Out, []string{"key", "value", "source"})
		for _, k := range config.Keys {
			e := entry{k.Name, cfg.Get(k.Name), cfg.Source(k.Name)}
			if err := w.Write(e, []string{e.Key, e.Value, e.Source}); err != nil {
				return err
			}
		}
		return w.Close()
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	for _, k := range config.Keys {
		src := cfg.Source(k.Name)
		if src != "" {
			src = "(" + src + ")"
		}
		// Values come from a file anyone may have edited: sanitized.
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k.Name, sanitize.String(cfg.Get(k.Name)), src)
	}
	return tw.Flush()
}

func keyHelp() string {
	s := ""
	for _, k := range config.Keys {
		env := ""
		if k.Env != "" {
			env = " [" + k.Env + "]"
		}
		s += fmt.Sprintf("  %-20s %s%s\n", k.Name, k.Help, env)
	}
	return s
}
