// events-client publishes Events through client-go's tools/events (the
// events.k8s.io/v1 recorder), for bench/clientgo.bench.ts, which drives it
// through the same line protocol as bench/client-go/library-client.ts:
//
//	stdout {"event":"ready"}                 client loaded, no request sent yet
//	stdin  go
//	stdout {"event":"returned","wallMs":…}   every Eventf call has returned
//	stdin  exit
//	stdout {"event":"exit","userUs":…,"sysUs":…,"workUs":…,"maxRssKb":…}
//
// workUs is the CPU (user+sys) spent from "go" to "exit": the work alone,
// whatever the start-up cost.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/events"
)

type object struct {
	Name            string `json:"name"`
	Namespace       string `json:"namespace"`
	UID             string `json:"uid"`
	ResourceVersion string `json:"resourceVersion"`
}

func say(fields map[string]any) {
	line, _ := json.Marshal(fields)
	fmt.Println(string(line))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "admin kubeconfig")
	objectsFile := flag.String("objects", "", "JSON array of ConfigMaps to publish about; none for an idle start")
	controller := flag.String("controller", "bench.example.com/client-go", "reportingController")
	qps := flag.Float64("qps", 5, "client QPS (client-go's default: 5)")
	burst := flag.Int("burst", 10, "client burst (client-go's default: 10)")
	repeats := flag.Int("repeats", 1, "occurrences per object")
	backoff := flag.Bool("backoff", false, "space an object's occurrences on a doubling backoff instead of sending them at once")
	backoffCap := flag.Duration("backoff-cap", time.Second, "cap of the doubling backoff (from 5 ms)")
	failure := flag.Bool("failure", false, "a Warning ReconcileFailed instead of a Normal Synced")
	flag.Parse()

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	config.QPS = float32(*qps)
	config.Burst = *burst
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fail(err)
	}
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	stop := make(chan struct{})
	broadcaster.StartRecordingToSink(stop)
	recorder := broadcaster.NewRecorder(scheme.Scheme, *controller)

	var objects []object
	if *objectsFile != "" {
		data, err := os.ReadFile(*objectsFile)
		if err != nil {
			fail(err)
		}
		if err := json.Unmarshal(data, &objects); err != nil {
			fail(err)
		}
	}
	configMaps := make([]*corev1.ConfigMap, len(objects))
	for i, o := range objects {
		configMaps[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: o.Name, Namespace: o.Namespace, UID: types.UID(o.UID), ResourceVersion: o.ResourceVersion,
		}}
	}

	stdin := bufio.NewScanner(os.Stdin)
	say(map[string]any{"event": "ready"})
	stdin.Scan() // "go"
	atGo := cpuUs()

	// Occurrences published so far, sampled every 50 ms until the workload returns: the
	// truth the server's counts are charted against.
	var published atomic.Int64
	publish := func(cm *corev1.ConfigMap) {
		published.Add(1)
		if *failure {
			recorder.Eventf(cm, nil, corev1.EventTypeWarning, "ReconcileFailed", "Reconcile", "source ConfigMap default/app not found")
		} else {
			recorder.Eventf(cm, nil, corev1.EventTypeNormal, "Synced", "Reconcile", "configuration synced")
		}
	}
	started := time.Now()
	issued := [][2]float64{{0, 0}}
	sampled := make(chan struct{})
	stopSampling := make(chan struct{})
	go func() {
		defer close(sampled)
		ticker := time.NewTicker(50 * time.Millisecond)
		defer ticker.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-ticker.C:
				issued = append(issued, [2]float64{float64(time.Since(started).Microseconds()) / 1000, float64(published.Load())})
			}
		}
	}()
	var wg sync.WaitGroup
	for _, cm := range configMaps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for attempt := 0; attempt < *repeats; attempt++ {
				publish(cm)
				if *backoff {
					// client-go's per-item workqueue backoff: 5 ms, doubling.
					time.Sleep(min(5*time.Millisecond<<attempt, *backoffCap))
				}
			}
		}()
	}
	wg.Wait()
	wallMs := float64(time.Since(started).Microseconds()) / 1000
	close(stopSampling)
	<-sampled
	issued = append(issued, [2]float64{wallMs, float64(published.Load())})
	say(map[string]any{"event": "returned", "wallMs": wallMs, "issued": issued})

	// The process keeps running, as a controller would, while the caller
	// watches the server; its recorder may still be writing.
	stdin.Scan() // "exit"
	close(stop)
	broadcaster.Shutdown()
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		fail(err)
	}
	say(map[string]any{
		"event":    "exit",
		"userUs":   usage.Utime.Sec*1e6 + usage.Utime.Usec,
		"sysUs":    usage.Stime.Sec*1e6 + usage.Stime.Usec,
		"workUs":   cpuUs() - atGo,
		"maxRssKb": peakRssKb(usage.Maxrss),
	})
}

// cpuUs is the user and system CPU this process has spent so far, in microseconds.
func cpuUs() int64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		fail(err)
	}
	return usage.Utime.Sec*1e6 + usage.Utime.Usec + usage.Stime.Sec*1e6 + usage.Stime.Usec
}

// peakRssKb is this program's own peak RSS. getrusage's maxrss is not: Linux
// carries it over from before exec, so a child forked by a large Node process
// reports that process's RSS. VmHWM belongs to the address space exec made.
func peakRssKb(fallback int64) int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if kb, found := strings.CutPrefix(line, "VmHWM:"); found {
				if value, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(kb, "kB")), 10, 64); err == nil {
					return value
				}
			}
		}
	}
	return fallback
}
