//go:build ignore

// gen writes confusables.txt, the data Skeleton needs, from Unicode's
// confusables.txt (UTS #39, https://www.unicode.org/Public/security/):
//
//	go run gen.go < confusables.txt > confusables.txt.new && mv confusables.txt.new confusables.txt
//
// It keeps the header (version, date, terms of use) and each mapping as
// "source;prototype" in hex code points, without the names and comments.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	header := true
	n := 0
	for in.Scan() {
		line := strings.TrimPrefix(in.Text(), "\uFEFF")
		if strings.HasPrefix(line, "#") {
			if header {
				fmt.Fprintln(out, line)
			}
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if header {
			fmt.Fprintln(out, "# The mappings alone, as source;prototype (reference/skeleton/gen.go).")
			header = false
		}
		fields := strings.Split(line, ";")
		if len(fields) < 3 {
			fmt.Fprintf(os.Stderr, "gen: not a mapping: %q\n", line)
			os.Exit(1)
		}
		fmt.Fprintf(out, "%s;%s\n", strings.TrimSpace(fields[0]), strings.TrimSpace(fields[1]))
		n++
	}
	if err := in.Err(); err != nil || n == 0 {
		fmt.Fprintf(os.Stderr, "gen: %v (%d mappings)\n", err, n)
		os.Exit(1)
	}
}
