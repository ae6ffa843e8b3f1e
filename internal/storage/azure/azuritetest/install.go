package azuritetest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// install returns the path of Azurite's entry script under
// <repo>/tools/node_modules, first running "npm ci" there when Azurite is
// missing or is not the version that tools/package.json pins. Concurrent
// test binaries take turns through a lock file.
func install() (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	tools := filepath.Join(root, "tools")
	want, err := pinnedVersion(tools)
	if err != nil {
		return "", err
	}
	script := filepath.Join(tools, "node_modules", "azurite", "dist", "src", "azurite.js")
	if installedVersion(tools) == want && exists(script) {
		return script, nil
	}

	sum := sha256.Sum256([]byte(tools))
	unlock, err := lockFile(filepath.Join(os.TempDir(), "azuritetest.npm-"+hex.EncodeToString(sum[:8])+".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if installedVersion(tools) == want && exists(script) { // installed while we waited
		return script, nil
	}

	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("azurite %s is not installed in %s and npm is not available to install it: %w", want, tools, err)
	}
	fmt.Fprintf(os.Stderr, "azuritetest: installing Azurite %s: npm ci --prefix %s\n", want, tools)
	cmd := exec.Command(npm, "ci", "--prefix", tools, "--no-audit", "--no-fund")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm ci --prefix %s failed: %w", tools, err)
	}
	if got := installedVersion(tools); got != want || !exists(script) {
		return "", fmt.Errorf("after npm ci, %s holds Azurite %q, not %s", script, got, want)
	}
	return script, nil
}

// repoRoot walks up from the working directory to the directory of go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find the repository root: %w", err)
	}
	for {
		if exists(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find the repository root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// pinnedVersion is the azurite version of tools/package.json.
func pinnedVersion(tools string) (string, error) {
	var pkg struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	path := filepath.Join(tools, "package.json")
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &pkg)
	}
	if err != nil {
		return "", fmt.Errorf("read the pinned Azurite version: %w", err)
	}
	if v := pkg.DevDependencies["azurite"]; v != "" {
		return v, nil
	}
	if v := pkg.Dependencies["azurite"]; v != "" {
		return v, nil
	}
	return "", fmt.Errorf("%s does not list azurite", path)
}

// installedVersion is the version of the installed azurite package, or "".
func installedVersion(tools string) string {
	var pkg struct {
		Version string `json:"version"`
	}
	data, err := os.ReadFile(filepath.Join(tools, "node_modules", "azurite", "package.json"))
	if err != nil || json.Unmarshal(data, &pkg) != nil {
		return ""
	}
	return pkg.Version
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
