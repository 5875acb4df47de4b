package sandbox

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"strings"
)

// attempt reads the start of an outbound connect from an IPv4 packet: a
// TCP SYN (without ACK) or any UDP datagram, to an address outside
// 127.0.0.0/8, as "tcp 192.0.2.1:443". ok is false for anything else
// (loopback traffic, replies, fragments, other protocols, short packets).
func attempt(pkt []byte) (string, bool) {
	if len(pkt) < 20 || pkt[0]>>4 != 4 {
		return "", false
	}
	ihl := int(pkt[0]&0x0f) * 4
	dst := net.IP(pkt[16:20])
	if ihl < 20 || dst.IsLoopback() || binary.BigEndian.Uint16(pkt[6:])&0x1fff != 0 {
		return "", false
	}
	switch pkt[9] {
	case 6: // TCP
		if len(pkt) < ihl+14 || pkt[ihl+13]&0x12 != 0x02 {
			return "", false
		}
		return fmt.Sprintf("tcp %s:%d", dst, binary.BigEndian.Uint16(pkt[ihl+2:])), true
	case 17: // UDP
		if len(pkt) < ihl+4 {
			return "", false
		}
		return fmt.Sprintf("udp %s:%d", dst, binary.BigEndian.Uint16(pkt[ihl+2:])), true
	}
	return "", false
}

// localHosts rewrites the hosts line of an nsswitch.conf to "files dns".
func localHosts(conf []byte) ([]byte, bool) {
	var out bytes.Buffer
	changed := false
	sc := bufio.NewScanner(bytes.NewReader(conf))
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) > 0 && f[0] == "hosts:" && strings.Join(f[1:], " ") != "files dns" {
			line, changed = "hosts: files dns", true
		}
		out.WriteString(line + "\n")
	}
	return out.Bytes(), changed
}
