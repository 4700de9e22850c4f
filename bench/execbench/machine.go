package main

import (
	"bufio"
	"os"
	"runtime"
	"strings"
)

// machine describes where the figures were taken.
type machine struct {
	CPUs       int    // as nproc counts them: the CPUs this process may run on
	CPUModel   string // from /proc/cpuinfo
	Kernel     string // as uname -r prints it
	KVM        bool   // /dev/kvm exists
	Hypervisor bool   // the CPU reports that it is virtualised
	Go         string
}

func describeMachine() machine {
	m := machine{CPUs: runtime.NumCPU(), Go: runtime.Version()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if _, err := os.Stat("/dev/kvm"); err == nil {
		m.KVM = true
	}
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return m // the report then shows the model as unknown
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024) // the flags line is long
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "model name":
			if m.CPUModel == "" {
				m.CPUModel = strings.TrimSpace(value)
			}
		case "flags":
			m.Hypervisor = m.Hypervisor || strings.Contains(" "+value+" ", " hypervisor ")
		}
	}
	return m
}
