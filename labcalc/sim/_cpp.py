"""The C++ half of the simulator, compiled by cling (cppyy) once per process.

Everything that runs per packet or per event (trace sinks, periodic sampling, drop
accounting) is C++ so that the Python side only builds the topology and reads vectors
back after ``Simulator::Run``. One ``Store`` holds a run; ``begin`` in C++ starts a clean one
(defaults reset, seed set) and ``finish`` destroys the simulator. Every ns-3 call of a run is
made here, behind a C interface (``lc_*``: numbers, C strings, arrays), so that the Python
side needs no ns-3 type: :mod:`labcalc.sim._engine` either compiles this file once with the
system's C++ compiler into a cached library that ctypes loads, or has cling (cppyy) compile
it after parsing the headers of the modules in :data:`MODULES` only.
"""

#: The ns-3 modules this code uses (headers parsed and libraries loaded by :mod:`labcalc.sim._engine`).
MODULES = ("core", "network", "internet", "point-to-point", "applications", "traffic-control")

SOURCE = r"""
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>
#include <string>

namespace labcalc_sim {
using namespace ns3;

struct Store {
  NodeContainer nodes;
  std::vector<Ptr<NetDevice>> devA, devB;      // per link: device at the tail, at the head
  std::vector<Ipv4Address> addrA, addrB;       // their addresses
  std::vector<uint32_t> ifA, ifB;              // and their interface numbers on their nodes
  std::vector<Ptr<QueueDisc>> qdisc;           // the forward queue disc of every link
  std::vector<uint32_t> watched;               // links whose queue is sampled
  std::vector<Ptr<Application>> apps;          // one sender application per flow
  std::vector<int> tcp;                        // 1 when the flow is TCP
  std::vector<Ptr<PacketSink>> sinks;          // one receiver per flow
  std::map<uint32_t, uint32_t> flowOfDst;      // receiver address -> flow
  std::vector<double> sent, lost;              // per flow: packets sent by the sender, dropped anywhere
  std::vector<double> cwF, cwT, cwOld, cwNew;  // cwnd trace (flow, time, old, new)
  std::vector<double> ssF, ssT, ssOld, ssNew;  // ssthresh trace
  std::vector<double> rtF, rtT, rtV;           // RTT samples
  std::vector<double> gpT, gpB;                // goodput samples: time, then bytes per flow
  std::vector<double> qT, qLen, qDrop;         // queue samples: time, then per watched link
  std::vector<double> qBytes, qMark;           //   backlog in bytes, cumulative ECN marks
};

Store* S = nullptr;

// A UDP sender of fixed-size datagrams at a mean rate: exponential gaps (Poisson
// arrivals) or equal gaps (a periodic source such as iperf or OnOffApplication).
class UdpSender : public Application {
 public:
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("labcalc::UdpSender").SetParent<Application>().SetGroupName("Applications");
    return tid;
  }
  void Setup(Address peer, uint32_t size, double gap_s, bool poisson, int64_t stream) {
    m_peer = peer; m_size = size; m_gap = gap_s; m_poisson = poisson;
    m_exp = CreateObject<ExponentialRandomVariable>();
    m_exp->SetAttribute("Mean", DoubleValue(gap_s));
    m_exp->SetStream(stream);
  }
 private:
  void StartApplication() override {
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    m_socket->Bind();
    m_socket->Connect(m_peer);
    Send();
  }
  void StopApplication() override {
    Simulator::Cancel(m_event);
    if (m_socket) m_socket->Close();
  }
  void Send() {
    m_socket->Send(Create<Packet>(m_size));
    double gap = m_poisson ? m_exp->GetValue() : m_gap;
    m_event = Simulator::Schedule(Seconds(gap), &UdpSender::Send, this);
  }
  Ptr<Socket> m_socket;
  Address m_peer;
  uint32_t m_size = 0;
  double m_gap = 1;
  bool m_poisson = true;
  Ptr<ExponentialRandomVariable> m_exp;
  EventId m_event;
};

// A TcpSocketBase that takes an RTT sample from the timestamp echo (TSecr) of every ACK
// that acknowledges new data, as Linux does (tcp_ack_update_rtt; RFC 6298 section 3 and
// RFC 7323 section 4 allow it because the echo says which transmission is acknowledged).
// ns-3.44's own EstimateRtt samples only segments in its RTT history, which ReTxTimeout
// clears and retransmissions never re-enter: after a timeout it takes no sample until a
// segment first sent after it is acknowledged. Behind a queue longer than the RTO, every
// ACK resets the timer to the stale estimate (NewAck), the timer fires again before that
// ACK can come, and the connection retransmits at one segment per timeout indefinitely.
// With linux_rto (set per run) its RTO is Linux's, SRTT + max(4 RTTVAR, 200 ms) (tcp_set_rto:
// the variance term never below TCP_RTO_MIN), where ns-3 takes max(SRTT + 4 RTTVAR, 200 ms):
// behind a full drop-tail queue the RTT barely varies, ns-3's RTO is then barely above the
// RTT, and a fast retransmission, which waits behind the whole queue, times out.
bool linux_rto = true;
void set_linux_rto(bool on) { linux_rto = on; }

class TsRttSocket : public TcpSocketBase {
 public:
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("labcalc::TsRttSocket").SetParent<TcpSocketBase>().SetGroupName("Internet")
                            .AddConstructor<TsRttSocket>();
    return tid;
  }
  TsRttSocket() = default;
  TsRttSocket(const TsRttSocket&) = default;

 protected:
  Ptr<TcpSocketBase> Fork() override { return CopyObject<TsRttSocket>(this); }
  Time Rto() const {
    return linux_rto ? m_rtt->GetEstimate() + Max(m_rtt->GetVariation() * 4, m_minRto)
                     : Max(m_rtt->GetEstimate() + Max(m_clockGranularity, m_rtt->GetVariation() * 4), m_minRto);
  }
  // NewAck restarts the timer with ns-3's RTO; restart it with this socket's
  void NewAck(const SequenceNumber32& ack, bool resetRTO) override {
    TcpSocketBase::NewAck(ack, resetRTO);
    if (linux_rto && m_state != SYN_RCVD && resetRTO && m_retxEvent.IsPending()) {
      m_retxEvent.Cancel();
      m_rto = Rto();
      m_retxEvent = Simulator::Schedule(m_rto, &TsRttSocket::ReTxTimeout, this);
    }
  }
  void EstimateRtt(const TcpHeader& h) override {
    SequenceNumber32 ack = h.GetAckNumber();
    // the base takes its sample when the oldest segment of its history is acknowledged
    bool own = m_state == ESTABLISHED && m_timestampEnabled && h.HasOption(TcpOption::TS)
               && ack > m_txBuffer->HeadSequence()
               && (m_history.empty() || ack < m_history.front().seq + SequenceNumber32(m_history.front().count));
    TcpSocketBase::EstimateRtt(h);
    if (!own) {
      if (linux_rto && !m_rtt->GetEstimate().IsZero()) m_rto = Rto();
      return;
    }
    Ptr<const TcpOptionTS> ts = DynamicCast<const TcpOptionTS>(h.GetOption(TcpOption::TS));
    Time rtt = TcpOptionTS::ElapsedTimeFromTsValue(ts->GetEcho());
    if (rtt.IsZero()) rtt = MicroSeconds(1);
    m_rtt->Measurement(rtt);
    m_rto = Rto();
    m_tcb->m_srtt = m_rtt->GetEstimate();
    m_tcb->m_minRtt = std::min(m_tcb->m_srtt.Get(), m_tcb->m_minRtt);
    m_tcb->m_lastRtt = rtt;
  }
};

// Creates TsRttSockets with the node's TcpL4Protocol settings (congestion control,
// recovery, RTT estimator), as TcpL4Protocol::CreateSocket does for its own sockets.
class TsRttSocketFactory : public SocketFactory {
 public:
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("labcalc::TsRttSocketFactory").SetParent<SocketFactory>().SetGroupName("Internet");
    return tid;
  }
  Ptr<Socket> CreateSocket() override {
    Ptr<Node> node = GetObject<Node>();
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    TypeIdValue cc, rec, rtt;
    tcp->GetAttribute("SocketType", cc);
    tcp->GetAttribute("RecoveryType", rec);
    tcp->GetAttribute("RttEstimatorType", rtt);
    ObjectFactory fc, fr, ft;
    fc.SetTypeId(cc.Get());
    fr.SetTypeId(rec.Get());
    ft.SetTypeId(rtt.Get());
    Ptr<TsRttSocket> s = CreateObject<TsRttSocket>();
    s->SetNode(node);
    s->SetTcp(tcp);
    s->SetRtt(ft.Create<RttEstimator>());
    s->SetCongestionControlAlgorithm(fc.Create<TcpCongestionOps>());
    s->SetRecoveryAlgorithm(fr.Create<TcpRecoveryOps>());
    tcp->AddSocket(s);
    return s;
  }
};

// A clean ns-3 for every run: attribute defaults reset, then set again (set_default), the
// address generator and the seed of the random streams (run number 1) set.
void begin(uint32_t seed) {
  Config::Reset();
  Ipv4AddressGenerator::Reset();
  RngSeedManager::SetSeed(seed);
  RngSeedManager::SetRun(1);
  delete S;
  S = new Store();
}

// Config::SetDefault from text: kind "uint", "bool" ("1"/"0"), "time" (seconds), "typeid" or "string".
void set_default(const std::string& key, const std::string& kind, const std::string& value) {
  if (kind == "uint") Config::SetDefault(key, UintegerValue(std::stoull(value)));
  else if (kind == "bool") Config::SetDefault(key, BooleanValue(value == "1"));
  else if (kind == "time") Config::SetDefault(key, TimeValue(Seconds(std::stod(value))));
  else if (kind == "typeid") Config::SetDefault(key, TypeIdValue(TypeId::LookupByName(value)));
  else Config::SetDefault(key, StringValue(value));
}

void finish() {
  Simulator::Destroy();
  delete S;
  S = nullptr;
}

uint32_t add_node() {
  Ptr<Node> n = CreateObject<Node>();
  S->nodes.Add(n);
  return S->nodes.GetN() - 1;
}

void install_stack() {
  InternetStackHelper stack;
  stack.Install(S->nodes);
  stack.AssignStreams(S->nodes, 1000);
}

// queue_type: a QueueDisc TypeId name; size: its MaxSize ("1000p", or "1000000B" for RED);
// red: for RedQueueDisc, {MinTh, MaxTh, QW, LInterm, MeanPktSize, LinkBandwidth, UseEcn}
// (labcalc.sim.red: Linux's RED, not gentle, no hard drop, uniform spacing). Returns the link index.
uint32_t add_link(uint32_t a, uint32_t b, double rate_bps, double delay_s, const std::string& size,
                  const std::string& queue_type, uint32_t reverse_queue_packets, const std::vector<double>& red) {
  PointToPointHelper p2p;
  p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(rate_bps + 0.5))));
  p2p.SetChannelAttribute("Delay", TimeValue(Seconds(delay_s)));
  p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));
  NetDeviceContainer d = p2p.Install(S->nodes.Get(a), S->nodes.Get(b));
  TrafficControlHelper fwd;
  if (queue_type == "ns3::RedQueueDisc") {
    fwd.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", QueueSizeValue(QueueSize(size)),
                         "MinTh", DoubleValue(red.at(0)), "MaxTh", DoubleValue(red.at(1)),
                         "QW", DoubleValue(red.at(2)), "LInterm", DoubleValue(red.at(3)),
                         "MeanPktSize", UintegerValue(uint32_t(red.at(4))),
                         "LinkBandwidth", DataRateValue(DataRate(uint64_t(red.at(5) + 0.5))),
                         "LinkDelay", TimeValue(Seconds(delay_s)),
                         "UseEcn", BooleanValue(red.at(6) != 0), "UseHardDrop", BooleanValue(false),
                         "Gentle", BooleanValue(false), "Wait", BooleanValue(false),
                         "ARED", BooleanValue(false), "AdaptMaxP", BooleanValue(false),
                         "FengAdaptive", BooleanValue(false), "NLRED", BooleanValue(false));
  } else {
    fwd.SetRootQueueDisc(queue_type, "MaxSize", QueueSizeValue(QueueSize(size)));
  }
  QueueDiscContainer q = fwd.Install(d.Get(0));
  // fixed random streams for the queue discs that draw (RED's drops, PIE's): otherwise ns-3 numbers
  // them from a counter that runs on across the runs of a process, and the same seed would
  // give another result in a second run
  uint32_t k0 = S->devA.size();
  if (Ptr<RedQueueDisc> red = DynamicCast<RedQueueDisc>(q.Get(0))) red->AssignStreams(3000 + k0);
  if (Ptr<PieQueueDisc> pie = DynamicCast<PieQueueDisc>(q.Get(0))) pie->AssignStreams(3000 + k0);
  TrafficControlHelper rev;
  rev.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                       QueueSizeValue(QueueSize(std::to_string(reverse_queue_packets) + "p")));
  rev.Install(d.Get(1));
  // link k gets the /30 10.(k >> 14).(k >> 6 & 0xff).((k & 0x3f) << 2): tail .1, head .2. Assigned
  // as Ipv4AddressHelper::Assign does (interface, address, metric 1, up), without its address
  // generator and device lookup, which walk every address and interface so far (quadratic
  // in the number of flows: 3000 flows took seconds there)
  uint32_t k = S->devA.size();
  uint32_t base = (10u << 24) | (((k >> 14) & 0xff) << 16) | (((k >> 6) & 0xff) << 8) | ((k & 0x3f) << 2);
  uint32_t iface[2];
  for (int e = 0; e < 2; ++e) {
    Ptr<NetDevice> dev = d.Get(e);
    Ptr<Ipv4> ip = dev->GetNode()->GetObject<Ipv4>();
    iface[e] = ip->AddInterface(dev);
    ip->AddAddress(iface[e], Ipv4InterfaceAddress(Ipv4Address(base + 1 + e), Ipv4Mask("255.255.255.252")));
    ip->SetMetric(iface[e], 1);
    ip->SetUp(iface[e]);
  }
  S->devA.push_back(d.Get(0));
  S->devB.push_back(d.Get(1));
  S->addrA.push_back(Ipv4Address(base + 1));
  S->addrB.push_back(Ipv4Address(base + 2));
  S->ifA.push_back(iface[0]);
  S->ifB.push_back(iface[1]);
  S->qdisc.push_back(q.Get(0));
  return k;
}

// (the interface number is the one add_link recorded: Ipv4::GetInterfaceForDevice walks every
// interface of the node, thousands on a router that many flows' private links reach)
void add_host_route(Ptr<Node> node, Ipv4Address dest, uint32_t iface) {
  Ptr<Ipv4> ip = node->GetObject<Ipv4>();
  Ipv4StaticRoutingHelper h;
  h.GetStaticRouting(ip)->AddHostRouteTo(dest, iface);
}

// Data towards the receiver leaves every tail on the link's forward device; ACKs towards
// the sender leave every head on the reverse device of the same link.
void route_flow(const std::vector<uint32_t>& links, uint32_t dst_link, uint32_t src_link) {
  Ipv4Address dst = S->addrB[dst_link];
  Ipv4Address src = S->addrA[src_link];
  for (uint32_t l : links) {
    add_host_route(S->devA[l]->GetNode(), dst, S->ifA[l]);
    add_host_route(S->devB[l]->GetNode(), src, S->ifB[l]);
  }
}

void on_cwnd(uint32_t f, uint32_t o, uint32_t n) {
  S->cwF.push_back(f); S->cwT.push_back(Simulator::Now().GetSeconds()); S->cwOld.push_back(o); S->cwNew.push_back(n);
}
void on_ssth(uint32_t f, uint32_t o, uint32_t n) {
  S->ssF.push_back(f); S->ssT.push_back(Simulator::Now().GetSeconds()); S->ssOld.push_back(o); S->ssNew.push_back(n);
}
void on_rtt(uint32_t f, Time o, Time n) {
  if (n.IsZero()) return;
  S->rtF.push_back(f); S->rtT.push_back(Simulator::Now().GetSeconds()); S->rtV.push_back(n.GetSeconds());
}
void on_sent(uint32_t f, Ptr<const Packet> p) { S->sent[f] += 1; }

uint32_t flow_of(Ptr<const Packet> p, bool ppp) {
  Ptr<Packet> c = p->Copy();
  if (ppp) { PppHeader h; c->RemoveHeader(h); }
  Ipv4Header ip;
  if (c->PeekHeader(ip) == 0) return 0xffffffff;
  auto it = S->flowOfDst.find(ip.GetDestination().Get());
  return it == S->flowOfDst.end() ? 0xffffffff : it->second;
}
void on_qdisc_drop(Ptr<const QueueDiscItem> item) {
  Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
  if (!ip) return;
  auto it = S->flowOfDst.find(ip->GetHeader().GetDestination().Get());
  if (it != S->flowOfDst.end()) S->lost[it->second] += 1;
}
void on_rx_drop(Ptr<const Packet> p) {
  uint32_t f = flow_of(p, true);
  if (f != 0xffffffff) S->lost[f] += 1;
}

void watch_socket(uint32_t f) {
  Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(S->apps[f]);
  if (!app) return;
  Ptr<Socket> s = app->GetSocket();
  if (!s) return;
  s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&on_cwnd, f));
  s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&on_ssth, f));
  s->TraceConnectWithoutContext("RTT", MakeBoundCallback(&on_rtt, f));
}

// sender_link: the flow's private link from its sender node; recv_link: to its receiver node.
uint32_t add_flow(int is_tcp, uint32_t sender_node, uint32_t receiver_node, uint32_t recv_link,
                  uint32_t sender_link, double payload_rate_bps, uint32_t payload_bytes, double start_s,
                  double stop_s, std::string tcp_type, bool traces, bool poisson, bool ts_rtt) {
  uint32_t f = S->apps.size();
  uint16_t port = 5001;
  Address sinkAddr(InetSocketAddress(S->addrB[recv_link], port));
  std::string factory = is_tcp ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
  PacketSinkHelper sink(factory, InetSocketAddress(Ipv4Address::GetAny(), port));
  ApplicationContainer r = sink.Install(S->nodes.Get(receiver_node));
  r.Start(Seconds(0.0));
  ApplicationContainer s;
  if (is_tcp) {
    Ptr<TcpL4Protocol> l4 = S->nodes.Get(sender_node)->GetObject<TcpL4Protocol>();
    l4->SetAttribute("SocketType", TypeIdValue(TypeId::LookupByName(tcp_type)));
    BulkSendHelper bulk("ns3::TcpSocketFactory", sinkAddr);
    bulk.SetAttribute("MaxBytes", UintegerValue(0));
    bulk.SetAttribute("SendSize", UintegerValue(payload_bytes));
    if (ts_rtt) {
      Ptr<Node> node = S->nodes.Get(sender_node);
      if (!node->GetObject<TsRttSocketFactory>()) node->AggregateObject(CreateObject<TsRttSocketFactory>());
      bulk.SetAttribute("Protocol", TypeIdValue(TsRttSocketFactory::GetTypeId()));
    }
    s = bulk.Install(S->nodes.Get(sender_node));
  } else {
    Ptr<UdpSender> app = CreateObject<UdpSender>();
    app->Setup(sinkAddr, payload_bytes, 8.0 * payload_bytes / payload_rate_bps, poisson, 2000 + f);
    S->nodes.Get(sender_node)->AddApplication(app);
    s.Add(app);
  }
  s.Start(Seconds(start_s));
  s.Stop(Seconds(stop_s));
  S->apps.push_back(s.Get(0));
  S->tcp.push_back(is_tcp);
  S->sinks.push_back(DynamicCast<PacketSink>(r.Get(0)));
  S->flowOfDst[S->addrB[recv_link].Get()] = f;
  S->sent.push_back(0);
  S->lost.push_back(0);
  S->devA[sender_link]->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&on_sent, f));
  if (is_tcp && traces) Simulator::Schedule(Seconds(start_s) + NanoSeconds(1), &watch_socket, f);
  return f;
}

void add_loss(uint32_t link, double rate, int64_t stream) {
  Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
  em->SetAttribute("ErrorRate", DoubleValue(rate));
  em->SetAttribute("ErrorUnit", EnumValue(RateErrorModel::ERROR_UNIT_PACKET));
  em->AssignStreams(stream);
  S->devB[link]->SetAttribute("ReceiveErrorModel", PointerValue(em));
}

void sample_goodput() {
  S->gpT.push_back(Simulator::Now().GetSeconds());
  for (auto& k : S->sinks) S->gpB.push_back(double(k->GetTotalRx()));
}
void sample_queue() {
  S->qT.push_back(Simulator::Now().GetSeconds());
  for (uint32_t l : S->watched) {
    Ptr<QueueDisc> q = S->qdisc[l];
    S->qLen.push_back(q->GetNPackets());
    S->qDrop.push_back(q->GetStats().nTotalDroppedPackets);
    S->qBytes.push_back(q->GetNBytes());
    S->qMark.push_back(q->GetStats().nTotalMarkedPackets);
  }
}

void run(double duration_s, double interval_s, double queue_interval_s, const std::vector<uint32_t>& watched) {
  S->watched = watched;
  for (auto& q : S->qdisc) q->TraceConnectWithoutContext("Drop", MakeCallback(&on_qdisc_drop));
  for (auto& d : S->devB) d->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&on_rx_drop));
  uint64_t n = uint64_t(duration_s / interval_s + 1e-9);
  for (uint64_t k = 0; k <= n; ++k) Simulator::Schedule(Seconds(k * interval_s), &sample_goodput);
  if (!watched.empty()) {
    uint64_t m = uint64_t(duration_s / queue_interval_s + 1e-9);
    for (uint64_t k = 0; k <= m; ++k) Simulator::Schedule(Seconds(k * queue_interval_s), &sample_queue);
  }
  Simulator::Stop(Seconds(duration_s) + NanoSeconds(1));
  Simulator::Run();
}

}  // namespace labcalc_sim

// The C interface the Python side calls (through ctypes for the compiled library, through
// cppyy for cling): plain numbers, C strings and arrays, so that neither needs ns-3's types.
extern "C" {
void lc_begin(uint32_t seed) { labcalc_sim::begin(seed); }
void lc_set_default(const char* key, const char* kind, const char* value) {
  labcalc_sim::set_default(key, kind, value);
}
uint32_t lc_add_node() { return labcalc_sim::add_node(); }
void lc_install_stack() { labcalc_sim::install_stack(); }
uint32_t lc_add_link(uint32_t a, uint32_t b, double rate_bps, double delay_s, const char* size, const char* queue_type,
                     uint32_t reverse_queue_packets, const double* red, uint32_t n_red) {
  return labcalc_sim::add_link(a, b, rate_bps, delay_s, size, queue_type, reverse_queue_packets,
                               std::vector<double>(red, red + n_red));
}
void lc_add_loss(uint32_t link, double rate, int64_t stream) { labcalc_sim::add_loss(link, rate, stream); }
void lc_set_linux_rto(int on) { labcalc_sim::set_linux_rto(on != 0); }
void lc_route_flow(const uint32_t* links, uint32_t n, uint32_t dst_link, uint32_t src_link) {
  labcalc_sim::route_flow(std::vector<uint32_t>(links, links + n), dst_link, src_link);
}
uint32_t lc_add_flow(int is_tcp, uint32_t sender_node, uint32_t receiver_node, uint32_t recv_link, uint32_t sender_link,
                     double payload_rate_bps, uint32_t payload_bytes, double start_s, double stop_s, const char* tcp_type,
                     int traces, int poisson, int ts_rtt) {
  return labcalc_sim::add_flow(is_tcp, sender_node, receiver_node, recv_link, sender_link, payload_rate_bps,
                               payload_bytes, start_s, stop_s, tcp_type, traces != 0, poisson != 0, ts_rtt != 0);
}
void lc_run(double duration_s, double interval_s, double queue_interval_s, const uint32_t* watched, uint32_t n) {
  labcalc_sim::run(duration_s, interval_s, queue_interval_s, std::vector<uint32_t>(watched, watched + n));
}
// The result vectors, by number (labcalc.sim._cpp.RESULTS gives the names in this order).
static std::vector<double>* lc_vector(int which) {
  using namespace labcalc_sim;
  if (!S) return nullptr;
  std::vector<double>* all[] = {&S->gpT, &S->gpB, &S->cwF, &S->cwT, &S->cwOld, &S->cwNew, &S->ssF, &S->ssT,
                                &S->ssOld, &S->ssNew, &S->rtF, &S->rtT, &S->rtV, &S->qT, &S->qLen, &S->qDrop,
                                &S->qBytes, &S->qMark, &S->sent, &S->lost};
  return (which >= 0 && which < int(sizeof(all) / sizeof(all[0]))) ? all[which] : nullptr;
}
uint64_t lc_size(int which) { std::vector<double>* v = lc_vector(which); return v ? v->size() : 0; }
void lc_copy(int which, double* out) {
  std::vector<double>* v = lc_vector(which);
  if (v) std::copy(v->begin(), v->end(), out);
}
void lc_finish() { labcalc_sim::finish(); }
}
"""

#: Names of the result vectors in the order of ``lc_vector`` (the C++ above).
RESULTS = ("gpT", "gpB", "cwF", "cwT", "cwOld", "cwNew", "ssF", "ssT", "ssOld", "ssNew", "rtF", "rtT", "rtV",
           "qT", "qLen", "qDrop", "qBytes", "qMark", "sent", "lost")

#: The C functions and their signatures, for ctypes: (name, result type, argument types), the
#: types as ``"u32"``, ``"u64"``, ``"i32"``, ``"i64"``, ``"f64"``, ``"str"``, ``"f64*"``, ``"u32*"`` or None.
API = (
    ("lc_begin", None, ("u32",)),
    ("lc_set_default", None, ("str", "str", "str")),
    ("lc_add_node", "u32", ()),
    ("lc_install_stack", None, ()),
    ("lc_add_link", "u32", ("u32", "u32", "f64", "f64", "str", "str", "u32", "f64*", "u32")),
    ("lc_add_loss", None, ("u32", "f64", "i64")),
    ("lc_set_linux_rto", None, ("i32",)),
    ("lc_route_flow", None, ("u32*", "u32", "u32", "u32")),
    ("lc_add_flow", "u32", ("i32", "u32", "u32", "u32", "u32", "f64", "u32", "f64", "f64", "str", "i32", "i32",
                            "i32")),
    ("lc_run", None, ("f64", "f64", "f64", "u32*", "u32")),
    ("lc_size", "u64", ("i32",)),
    ("lc_copy", None, ("i32", "f64*")),
    ("lc_finish", None, ()),
)
