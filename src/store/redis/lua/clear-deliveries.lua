local id = ARGV[2]
dropLeases(id)
redis.call('DEL', P .. 'dlv:' .. id, P .. 'dmeta:' .. id, P .. 'dord:' .. id, P .. 'dpend:' .. id, P .. 'dfin:' .. id)
refreshDue(id)
return 0
