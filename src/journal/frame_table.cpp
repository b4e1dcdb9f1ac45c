// FrameTable: the numbered frames of one journal, as its reader meets them, and the budget that
// keeps a journal of frame numbers alone from growing without bound in memory.

#include "importscope/journal/event.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace importscope::journal {

void FrameTable::define(Frame&& frame)
{
    const std::uint32_t number = frame.number;
    if (find(number) != nullptr)
        throw std::invalid_argument("frame " + std::to_string(number) + " is numbered twice");
    auto shared = std::make_shared<const Frame>(std::move(frame));
    if (number == m_in_order.size() + 1)
        m_in_order.push_back(std::move(shared));
    else
        m_out_of_order.emplace(number, std::move(shared));
}

void FrameTable::charge(const Frame& frame)
{
    m_copied_bytes += sizeof(Frame) + frame.file.size() + frame.function.size() + frame.module.size();
    if (m_copied_bytes > m_budget)
        throw std::invalid_argument(fmt::format("the journal's stacks copy more than {} MiB of frames (its frame "
                                                "numbers expand past {} times its size); the record is not read",
                                                m_budget >> 20, k_copies_per_byte));
}

const SharedFrame* FrameTable::find(std::uint32_t number) const
{
    if (number >= 1 && number <= m_in_order.size())
        return &m_in_order[number - 1];
    const auto it = m_out_of_order.find(number);
    return it != m_out_of_order.end() ? &it->second : nullptr;
}

const SharedFrame& FrameTable::shared(std::uint32_t number) const
{
    const SharedFrame* frame = find(number);
    if (frame == nullptr)
        throw std::invalid_argument("frame " + std::to_string(number) + " is not written whole earlier in the journal");
    return *frame;
}

} // namespace importscope::journal
