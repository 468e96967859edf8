// The expected times of test/unit/controllers/cronjob/schedule.test.ts come from here: robfig/cron v3.0.1, the
// library kube-controller-manager 1.37 parses CronJob schedules with (cron.ParseStandard), run on the same cases.
//
//	GOFLAGS=-mod=mod go run . < cases.tsv
//
// Each input line is tab-separated, one of:
//
//	next    <spec>  <from, RFC 3339>  <count>   Schedule.Next iterated count times from `from`
//	recent  <spec>  <from, RFC 3339>  <now>     every time in (from, now], by Next from `from` (the last is
//	                                            the most recent scheduled time mostRecentScheduleTime looks for)
//
// and prints the times in UTC, tab-separated ("ZERO" for Go's zero time), or "ERR <message>". The process runs in
// UTC (time.Local), as a controller-manager in a container does.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

func main() {
	time.Local = time.UTC
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 4 {
			fmt.Println("ERR bad line")
			continue
		}
		sched, err := cron.ParseStandard(parts[1])
		if err != nil {
			fmt.Println("ERR " + err.Error())
			continue
		}
		t, _ := time.Parse(time.RFC3339, parts[2])
		out := []string{}
		switch parts[0] {
		case "next":
			n, _ := strconv.Atoi(parts[3])
			for i := 0; i < n; i++ {
				t = sched.Next(t)
				if t.IsZero() {
					out = append(out, "ZERO")
					break
				}
				out = append(out, t.UTC().Format(time.RFC3339))
			}
		case "recent":
			now, _ := time.Parse(time.RFC3339, parts[3])
			for t = sched.Next(t); !t.IsZero() && !t.After(now); t = sched.Next(t) {
				out = append(out, t.UTC().Format(time.RFC3339))
			}
		}
		fmt.Println(strings.Join(out, "\t"))
	}
}
