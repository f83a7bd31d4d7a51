//! The socket `svc listen` hears on: a unicast address, or a multicast group joined on an
//! interface, so that GridTracker, JTAlert and other loggers hear the same datagrams beside
//! svc (WSJT-X sends to one address; a group is the way several programs share it).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use socket2::{Domain, InterfaceIndexOrAddress, Protocol, Socket, Type};
use tokio::net::UdpSocket;

/// The interface a group is joined on: an address of it, or its name (`lo`, `eth0`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Interface {
    Address(IpAddr),
    Name(String),
}

/// `--interface`: an IP address, else an interface's name.
pub fn interface(text: &str) -> Result<Interface, String> {
    let text = text.trim();
    if let Ok(address) = text.parse::<IpAddr>() {
        return Ok(Interface::Address(address));
    }
    if text.is_empty()
        || text.len() > 15
        || !text.bytes().all(|b| b.is_ascii_graphic() && b != b'/')
    {
        return Err(format!(
            "{text:?} is not a network interface: give its name (e.g. lo, eth0) or one of its addresses"
        ));
    }
    Ok(Interface::Name(text.to_owned()))
}

/// `--multicast`: a multicast group's address.
pub fn group(text: &str) -> Result<IpAddr, String> {
    match text.trim().parse::<IpAddr>() {
        Ok(group) if group.is_multicast() => Ok(group),
        _ => Err(format!(
            "{text:?} is not a multicast group: give an address in 224.0.0.0/4 or ff00::/8, e.g. 224.0.0.73 (WSJT-X's UDP Server set to the same)"
        )),
    }
}

/// Why a socket could not be had: the step and the system's reason.
pub struct BindError {
    pub error: std::io::Error,
    /// Joining the group failed, not binding the port.
    pub joining: bool,
}

/// A socket on `bind`, or on `bind`'s port in `group` joined on `interface` (the loopback
/// interface when none is named, as WSJT-X's own default is). A group's port may be shared:
/// every program that joined the group on it hears each datagram.
pub async fn open(
    bind: SocketAddr,
    group: Option<IpAddr>,
    interface: Option<&Interface>,
) -> Result<UdpSocket, BindError> {
    let Some(group) = group else {
        return UdpSocket::bind(bind).await.map_err(|error| BindError {
            error,
            joining: false,
        });
    };
    let bound = |error| BindError {
        error,
        joining: false,
    };
    let joined = |error| BindError {
        error,
        joining: true,
    };
    let domain = if group.is_ipv4() {
        Domain::IPV4
    } else {
        Domain::IPV6
    };
    let socket = Socket::new(domain, Type::DGRAM, Some(Protocol::UDP)).map_err(bound)?;
    socket.set_reuse_address(true).map_err(bound)?;
    let any: IpAddr = match group {
        IpAddr::V4(_) => Ipv4Addr::UNSPECIFIED.into(),
        IpAddr::V6(_) => Ipv6Addr::UNSPECIFIED.into(),
    };
    socket
        .bind(&SocketAddr::new(any, bind.port()).into())
        .map_err(bound)?;
    match group {
        IpAddr::V4(group) => {
            let on = match interface {
                None => InterfaceIndexOrAddress::Address(Ipv4Addr::LOCALHOST),
                Some(Interface::Address(IpAddr::V4(address))) => {
                    InterfaceIndexOrAddress::Address(*address)
                }
                Some(Interface::Address(IpAddr::V6(_))) => {
                    return Err(joined(std::io::Error::other(
                        "an IPv4 group is joined on an interface's IPv4 address or its name",
                    )));
                }
                Some(Interface::Name(name)) => InterfaceIndexOrAddress::Index(index(name)?),
            };
            socket.join_multicast_v4_n(&group, &on).map_err(joined)?;
            // Datagrams svc sends to the group (none today) stay on this host's interface.
            socket.set_multicast_loop_v4(true).map_err(joined)?;
        }
        IpAddr::V6(group) => {
            let on = match interface {
                // 1 is the loopback interface's index on Linux and the BSDs.
                None => 1,
                Some(Interface::Name(name)) => index(name)?,
                Some(Interface::Address(_)) => {
                    return Err(joined(std::io::Error::other(
                        "an IPv6 group is joined on an interface named, e.g. --interface lo",
                    )));
                }
            };
            socket.join_multicast_v6(&group, on).map_err(joined)?;
        }
    }
    socket.set_nonblocking(true).map_err(bound)?;
    UdpSocket::from_std(socket.into()).map_err(bound)
}

/// An interface's index from its name, as the system numbers it.
fn index(name: &str) -> Result<u32, BindError> {
    let unknown = || BindError {
        error: std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no network interface is named {name:?}"),
        ),
        joining: true,
    };
    // Linux lists each interface's index in sysfs: read there, no system call to wrap.
    let text =
        std::fs::read_to_string(format!("/sys/class/net/{name}/ifindex")).map_err(|_| unknown())?;
    text.trim().parse().map_err(|_| unknown())
}

/// The program holding UDP `port` on this computer, as `name (pid N)`, where the system says
/// (Linux, and a process of this user or any with root): the socket's inode in
/// `/proc/net/udp` (and `udp6`), then the process with that socket open.
pub fn holder(port: u16) -> Option<String> {
    let inodes: Vec<String> = ["/proc/net/udp", "/proc/net/udp6"]
        .iter()
        .filter_map(|table| std::fs::read_to_string(table).ok())
        .flat_map(|table| {
            table
                .lines()
                .skip(1)
                .filter_map(|line| {
                    // sl local_address rem_address st tx:rx tr:tm retrnsmt uid timeout inode
                    let fields: Vec<&str> = line.split_whitespace().collect();
                    let local_port = fields.get(1)?.rsplit(':').next()?;
                    (u16::from_str_radix(local_port, 16).ok()? == port)
                        .then(|| fields.get(9).map(|inode| format!("socket:[{inode}]")))
                        .flatten()
                })
                .collect::<Vec<_>>()
        })
        .collect();
    if inodes.is_empty() {
        return None;
    }
    for process in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = process
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else {
            continue;
        };
        let holds = fds.flatten().any(|fd| {
            std::fs::read_link(fd.path())
                .is_ok_and(|target| inodes.iter().any(|i| target.as_os_str() == i.as_str()))
        });
        if holds {
            let name = std::fs::read_to_string(process.path().join("comm"))
                .map(|n| n.trim().to_owned())
                .unwrap_or_else(|_| "a program".to_owned());
            return Some(format!("{name} (pid {pid})"));
        }
    }
    None
}
