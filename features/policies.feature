@cap:policies
Feature: Policies
  Policies give privileges to users. Creating, changing, deleting and listing policies
  needs MANAGE_POLICIES; no other privilege stands in for it, and a refused change leaves
  the policies as they were. A policy applies to the users it names, or to all users, and
  counts only while ACTIVE.

  Background:
    Given Ann holds a personal access token

  @id:policy-01 @must @core
  Scenario Outline: Someone granted MANAGE_POLICIES <action>
    Given Ann is granted MANAGE_POLICIES
    And the administrator has made a policy
    When Ann <action>
    Then the policies show what Ann did

    Examples:
      | action             |
      | creates a policy   |
      | updates the policy |
      | deletes the policy |
      | lists the policies |

  @id:policy-02 @must @core
  Scenario Outline: Someone granted only <privilege> is refused when she <action>
    Given Ann is granted <privilege>
    And the administrator has made a policy
    When Ann <action>
    Then Ann is rejected as unauthorized

    Examples:
      | privilege            | action             |
      | MANAGE_ACCESS_TOKENS | creates a policy   |
      | MANAGE_ACCESS_TOKENS | updates the policy |
      | MANAGE_ACCESS_TOKENS | deletes the policy |
      | MANAGE_ACCESS_TOKENS | lists the policies |
      | MANAGE_TAGS          | updates the policy |

  @id:policy-03 @must @core
  Scenario: A privilege granted to someone else does not reach another user
    Given Bob holds a personal access token
    And Bob is granted CREATE_TAGS
    Then Bob can create a tag
    But Ann cannot create a tag

  @id:policy-04 @must @core
  Scenario: A policy made INACTIVE grants nothing
    Given the administrator has made an INACTIVE policy granting Ann CREATE_TAGS
    Then Ann cannot create a tag

  # This scenario gives every user a privilege while it runs, so it runs alone.
  @id:policy-05 @must @core @exclusive
  Scenario: A privilege granted to all users reaches every user
    Given Bob holds a personal access token
    And a policy grants every user CREATE_TAGS
    Then Ann can create a tag
    And Bob can create a tag
