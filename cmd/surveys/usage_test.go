package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestCommandLineHelp runs the command line as main does: help lists the
// commands, or a command's own flags and no other, on standard output
// with status 0; a wrong command or flag gets status 2 and a short usage
// on standard error.
func TestCommandLineHelp(t *testing.T) {
	commands := []string{"serve", "user add", "user password", "user remove", "token create", "token list", "token revoke",
		"tenant list", "tenant suspend", "tenant resume", "tenant plan", "tenant delete", "backup", "migrate", "help"}
	for _, tc := range []struct {
		args             string
		code             int
		stdout, stderr   []string // what each holds
		notStdout        []string // flags the command does not take
		emptyOut, empErr bool
	}{
		{args: "--help", code: 0, stdout: commands, empErr: true},
		{args: "-h", code: 0, stdout: commands, empErr: true},
		{args: "help", code: 0, stdout: commands, empErr: true},
		{args: "serve --help", code: 0, stdout: []string{"Usage: surveys serve", "-addr", "-worker", "-data", "-storage", "-metrics-allow"},
			notStdout: []string{"-tenant", "-password-stdin", "-out"}, empErr: true},
		{args: "serve -h", code: 0, stdout: []string{"-worker"}, empErr: true},
		{args: "user --help", code: 0, stdout: []string{"surveys user add", "surveys user password", "surveys user remove"}, empErr: true},
		{args: "user password -h", code: 0, stdout: []string{"Usage: surveys user password", "-tenant", "-email", "-password-stdin"}, notStdout: []string{"-addr"}, empErr: true},
		{args: "user help", code: 0, stdout: []string{"surveys user add"}, empErr: true},
		{args: "user add --help", code: 0, stdout: []string{"Usage: surveys user add", "-tenant", "-email", "-password-stdin", "-data", "-storage"},
			notStdout: []string{"-addr", "-worker", "-name", "-expires"}, empErr: true},
		{args: "user remove -h", code: 0, stdout: []string{"-tenant", "-email"}, notStdout: []string{"-password-stdin"}, empErr: true},
		{args: "token --help", code: 0, stdout: []string{"surveys token create", "surveys token list", "surveys token revoke"}, empErr: true},
		{args: "token create -h", code: 0, stdout: []string{"-tenant", "-name", "-expires"}, notStdout: []string{"-email", "-worker"}, empErr: true},
		{args: "token list -h", code: 0, stdout: []string{"-tenant"}, notStdout: []string{"-name", "-expires"}, empErr: true},
		{args: "tenant -h", code: 0, stdout: []string{"surveys tenant list", "surveys tenant delete"}, empErr: true},
		{args: "tenant list --help", code: 0, stdout: []string{"-data", "-storage"}, notStdout: []string{"-tenant", "-yes"}, empErr: true},
		{args: "tenant delete --help", code: 0, stdout: []string{"-tenant", "-yes"}, empErr: true},
		{args: "tenant plan --help", code: 0, stdout: []string{"-tenant", "PLAN", "Premium"}, notStdout: []string{"-yes"}, empErr: true},
		{args: "backup --help", code: 0, stdout: []string{"-out", "-force", "-data"}, notStdout: []string{"-tenant", "-storage", "-to"}, empErr: true},
		{args: "migrate --help", code: 0, stdout: []string{"-to", "-from", "-data", "-azure-connection-string"}, notStdout: []string{"-tenant", "-storage", "-out"}, empErr: true},

		{args: "bogus", code: 2, stderr: []string{`unknown command "bogus"`, "Usage: surveys <command>", "surveys help"}, emptyOut: true},
		{args: "serve --bogus", code: 2, stderr: []string{"-bogus", "Usage: surveys serve", "surveys serve -h"}, emptyOut: true},
		{args: "--bogus", code: 2, stderr: []string{"-bogus", "Usage: surveys serve"}, emptyOut: true},
		{args: "serve extra", code: 2, stderr: []string{"unexpected arguments"}, emptyOut: true},
		{args: "user", code: 2, stderr: []string{"give one of: add, password, remove", "surveys user add"}, emptyOut: true},
		{args: "user rename", code: 2, stderr: []string{`unknown command "rename"`}, emptyOut: true},
		{args: "user add --tenant", code: 2, stderr: []string{"flag needs an argument: -tenant", "Usage: surveys user add"}, emptyOut: true},
		{args: "token create --email x", code: 2, stderr: []string{"-email", "Usage: surveys token create"}, emptyOut: true},
		{args: "tenant list --tenant adatum", code: 2, stderr: []string{"-tenant", "Usage: surveys tenant list"}, emptyOut: true},
		{args: "backup --tenant adatum", code: 2, stderr: []string{"-tenant", "Usage: surveys backup"}, emptyOut: true},
		{args: "migrate --storage azure", code: 2, stderr: []string{"-storage", "Usage: surveys migrate"}, emptyOut: true},
	} {
		t.Run(tc.args, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), strings.Fields(tc.args), func(string) string { return "" }, strings.NewReader(""), &stdout, &stderr)
			if code := exitCode(err, &stderr); code != tc.code {
				t.Errorf("exit status %d (%v), want %d", code, err, tc.code)
			}
			for _, w := range tc.stdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("standard output lacks %q:\n%s", w, stdout.String())
				}
			}
			for _, w := range tc.notStdout {
				if strings.Contains(stdout.String(), "  "+w+" ") || strings.Contains(stdout.String(), "  "+w+"\n") {
					t.Errorf("standard output lists %s, which this command does not take:\n%s", w, stdout.String())
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("standard error lacks %q:\n%s", w, stderr.String())
				}
			}
			if tc.emptyOut && stdout.Len() > 0 {
				t.Errorf("standard output holds %q", stdout.String())
			}
			if tc.empErr && stderr.Len() > 0 {
				t.Errorf("standard error holds %q", stderr.String())
			}
			// The commands' list gives one line each.
			if tc.code == 0 && strings.Contains(tc.args, "help") && !strings.Contains(tc.args, " ") || tc.args == "-h" {
				for _, c := range commands {
					if n := strings.Count(stdout.String(), "\n  "+c+" "); n != 1 {
						t.Errorf("%q is on %d lines of the list", c, n)
					}
				}
			}
		})
	}
}
